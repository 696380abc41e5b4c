import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";

/** Standard Webhooks: timestamps further than this from now are refused. */
export const REPLAY_TOLERANCE_S = 5 * 60;

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
  if (header === undefined) return false;
  const hex = header.trim().replace(/^sha256=/i, "");
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  const expected = createHmac("sha256", hmacKey(secret)).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, "hex"));
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
  const { id, timestamp, signature } = headers;
  if (!id || id.length > 256 || !timestamp || !signature || !/^\d{1,15}$/.test(timestamp)) return { ok: false };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > REPLAY_TOLERANCE_S) return { ok: false };
  const expected = createHmac("sha256", hmacKey(secret)).update(`${id}.${timestamp}.`).update(body).digest();
  const matched = signature.split(" ").some((candidate) => {
    const [version, value] = candidate.split(",");
    if (version !== "v1" || value === undefined) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matched ? { ok: true, id } : { ok: false };
}
