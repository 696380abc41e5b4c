import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** scrypt's cost parameters, stored with each hash. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

// OWASP's scrypt minimum (N=2^17, r=8, p=1); maxmem must allow 128 * N * r bytes.
const PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt hex>$<key hex>`: the parameters travel with the hash, so they can be raised later. */
export function hashPassword(password: string): Promise<string> {
  return hashPasswordAt(password, PARAMS);
}

/**
 * The same hash at other parameters: for test fixtures, whose logins would otherwise spend most of
 * a core per password on scrypt (login verifies at the parameters the hash carries).
 */
export async function hashPasswordAt(password: string, params: ScryptParams): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("hex"), key.toString("hex")].join("$");
}

/**
 * What a login for an unknown email is checked against, so that it costs the one scrypt a wrong
 * password costs and its timing does not tell which emails have an account. A random salt and key
 * at the current parameters: no password derives to it.
 */
export const DECOY_PASSWORD_HASH = [
  "scrypt",
  PARAMS.N,
  PARAMS.r,
  PARAMS.p,
  randomBytes(16).toString("hex"),
  randomBytes(KEY_BYTES).toString("hex"),
].join("$");

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, key] = stored.split("$");
  if (kind !== "scrypt" || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "hex");
  const actual = await derive(password, Buffer.from(salt, "hex"), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
