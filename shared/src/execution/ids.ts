import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function encodeTime(ms: number): string {
  let out = "";
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/**
 * A time-ordered id (ULID layout, lowercase Crockford base32): sorting ids sorts by creation
 * time, which is what "newest first" lists need, and it is a valid NATS subject token.
 */
export function newId(now: number = Date.now()): string {
  const rand = randomBytes(10);
  let r = "";
  for (const b of rand) r += ALPHABET[b % 32];
  return encodeTime(now) + r;
}

/** Ids and names that travel in subjects must be single tokens. */
export function isSubjectToken(s: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(s);
}
