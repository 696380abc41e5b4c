import { describe, expect, it } from "vitest";
import { DECOY_SECRET_HASH, generateApiKey, hashSecret, parseApiKey, secretMatches } from "./api-key";
import { hashPassword, verifyPassword } from "./password";

describe("API keys", () => {
  it("are wfk_<keyId>_<secret>, parse back, and only the secret's hash is needed to check them", () => {
    const k = generateApiKey();
    expect(k.key).toBe(`wfk_${k.keyId}_${k.secret}`);
    expect(parseApiKey(k.key)).toEqual({ keyId: k.keyId, secret: k.secret });
    expect(k.secretHash).toBe(hashSecret(k.secret));
    expect(k.secretHash).not.toContain(k.secret);
    expect(secretMatches(k.secret, k.secretHash)).toBe(true);
    expect(secretMatches(generateApiKey().secret, k.secretHash)).toBe(false);
  });

  it("an unknown id's secret is checked against a decoy shaped like a stored hash, which nothing matches", () => {
    // A decoy of another shape would make secretMatches stop at the length check: no comparison, less time.
    expect(DECOY_SECRET_HASH).toMatch(/^[0-9a-f]{64}$/);
    const k = generateApiKey();
    expect(DECOY_SECRET_HASH).not.toBe(k.secretHash);
    expect(secretMatches(k.secret, DECOY_SECRET_HASH)).toBe(false);
  });

  it("rejects any other shape", () => {
    const { keyId, secret } = generateApiKey();
    for (const bad of [
      "",
      "wfk",
      `wfk_${keyId}`,
      `abc_${keyId}_${secret}`,
      `wfk_${keyId}_${secret}x`,
      `wfk_${keyId}_${secret.toUpperCase()}`,
      ` wfk_${keyId}_${secret}`,
      `wfk_${keyId}_${secret}_x`,
    ]) {
      expect(parseApiKey(bad), bad).toBeNull();
    }
  });
});

describe("passwords", () => {
  it("are kept as salted scrypt hashes that verify only the right password", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^scrypt\$131072\$8\$1\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterz", a)).toBe(false);
    expect(await verifyPassword("anything", "plain-text")).toBe(false);
  });
});
