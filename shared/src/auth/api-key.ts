import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { newId } from "../execution/ids";

const PREFIX = "wfk";
const SECRET_BYTES = 32;
const KEY_PATTERN = /^wfk_([0-9a-z]{8,64})_([0-9a-f]{64})$/;

export interface ParsedApiKey {
  keyId: string;
  secret: string;
}

export interface GeneratedApiKey extends ParsedApiKey {
  /** The full key, `wfk_<keyId>_<secret>`: shown once, never stored. */
  key: string;
  secretHash: string;
}

/** A fresh key: a time-ordered id (which is also the record id) and 256 random bits of secret. */
export function generateApiKey(): GeneratedApiKey {
  const keyId = newId();
  const secret = randomBytes(SECRET_BYTES).toString("hex");
  return { keyId, secret, key: `${PREFIX}_${keyId}_${secret}`, secretHash: hashSecret(secret) };
}

/** `wfk_<keyId>_<secret>`, or null when the text has any other shape. */
export function parseApiKey(text: string): ParsedApiKey | null {
  const m = KEY_PATTERN.exec(text);
  return m ? { keyId: m[1]!, secret: m[2]! } : null;
}

/**
 * A secret of 256 random bits cannot be guessed from its hash, so a fast hash is enough (the
 * slow ones exist for low-entropy passwords) and keeps verification cheap on every request.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/**
 * What an unknown key id's secret is compared with, so that an unknown id costs the hashing and
 * the comparison a wrong secret costs, and its timing does not tell that the id exists. The hash
 * of a random secret nobody holds: nothing presented can match it.
 */
export const DECOY_SECRET_HASH = hashSecret(randomBytes(SECRET_BYTES).toString("hex"));

/** Constant-time: compares fixed-length digests, never the secrets' own lengths or prefixes. */
export function secretMatches(secret: string, secretHash: string): boolean {
  const expected = Buffer.from(secretHash, "hex");
  const actual = createHash("sha256").update(secret).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
