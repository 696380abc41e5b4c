import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";

/** Standard Webhooks: timestamps further than this from now are refused. */
export const REPLAY_TOLERANCE_S = 5 * 60;
/** SHA-256's. */
const HMAC_BYTES = 32;

/**
 * HMAC keys by secret. createHmac imports a Buffer key anew on every call (measured at 3-6x the
 * cost of the HMAC itself); the secret box hands out the same Buffer for a webhook's secret
 * each time, so its key object is made once and goes when the Buffer does.
 */
const keys = new WeakMap<Buffer, KeyObject>();

function hmacKey(secret: Buffer): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    key = createSecretKey(secret);
    keys.set(secret, key);
  }
  return key;
}

/**
 * Legacy HMAC mode: `X-Webhook-Signature` is the hex HMAC-SHA256 of the raw body bytes, with or
 * without `sha256=`. Compared in constant time over the decoded bytes.
 */
export function legacySignatureMatches(secret: Buffer, body: Buffer, header: string | undefined): boolean {
  const given = legacySignatureOf(header);
  if (given === null) return false;
  const expected = createHmac("sha256", hmacKey(secret)).update(body).digest();
  return timingSafeEqual(expected, given);
}

/** The HMAC a legacy header carries, or null when it carries none: told before the body is read. */
export function legacySignatureOf(header: string | undefined): Buffer | null {
  if (header === undefined) return null;
  const hex = header.trim().replace(/^sha256=/i, "");
  return /^[0-9a-f]{64}$/i.test(hex) ? Buffer.from(hex, "hex") : null;
}

export interface StandardHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

export type StandardCheck = { ok: true; id: string } | { ok: false };

/**
 * Standard Webhooks (standardwebhooks.com): `webhook-signature` is a space-separated list of
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`; one match is enough (senders list
 * two while rotating secrets). The timestamp (epoch seconds) must be within the tolerance.
 */
export function standardSignatureMatches(
  secret: Buffer,
  body: Buffer,
  headers: StandardHeaders,
  nowMs: number,
): StandardCheck {
  const given = standardSignaturesOf(headers, nowMs);
  if (given.length === 0) return { ok: false };
  const id = headers.id!;
  const expected = createHmac("sha256", hmacKey(secret)).update(`${id}.${headers.timestamp!}.`).update(body).digest();
  return given.some((candidate) => timingSafeEqual(candidate, expected)) ? { ok: true, id } : { ok: false };
}

/**
 * The HMACs the headers offer (`v1` ones of an HMAC's length), none when the id or the timestamp is missing or
 * malformed or the timestamp is out of the tolerance: told before the body is read.
 */
export function standardSignaturesOf(headers: StandardHeaders, nowMs: number): Buffer[] {
  const { id, timestamp, signature } = headers;
  if (!id || id.length > 256 || !timestamp || !signature || !/^\d{1,15}$/.test(timestamp)) return [];
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > REPLAY_TOLERANCE_S) return [];
  return signature.split(" ").flatMap((candidate) => {
    const [version, value] = candidate.split(",");
    if (version !== "v1" || value === undefined) return [];
    const given = Buffer.from(value, "base64");
    return given.length === HMAC_BYTES ? [given] : [];
  });
}
