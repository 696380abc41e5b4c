import { createHash, randomFillSync } from "node:crypto";

/** Crockford base32, lowercase: the characters of every id made here. */
export const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function encodeTime(ms: number): string {
  let out = "";
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

const RANDOM_BYTES = 10;
/**
 * Random bytes drawn from the CSPRNG a few hundred ids at a time: one randomBytes call per id
 * cost a hot path (the webhook trigger) about 7% of its CPU. Each byte is used once.
 */
const pool = Buffer.alloc(RANDOM_BYTES * 400);
let poolAt = pool.length;

/**
 * A time-ordered id (ULID layout, lowercase Crockford base32): sorting ids sorts by creation
 * time, which is what "newest first" lists need, and it is a valid NATS subject token.
 */
export function newId(now: number = Date.now()): string {
  if (poolAt + RANDOM_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let r = "";
  for (let i = poolAt; i < poolAt + RANDOM_BYTES; i++) r += ALPHABET[pool[i]! % 32];
  poolAt += RANDOM_BYTES;
  return encodeTime(now) + r;
}

/**
 * The id `newId` would give at time `at`, with the random part replaced by a hash of `seed`: the
 * same seed always yields the same id, so that two processes starting "the same" execution (a
 * schedule's tick, a chain's fire) collide on it instead of starting it twice.
 */
export function derivedId(at: number, seed: string): string {
  let r = "";
  for (const b of createHash("sha256").update(seed).digest().subarray(0, 10)) r += ALPHABET[b % 32];
  return encodeTime(at) + r;
}

/** Ids and names that travel in subjects must be single tokens. */
export function isSubjectToken(s: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(s);
}
