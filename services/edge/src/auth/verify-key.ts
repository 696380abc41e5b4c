import { DECOY_SECRET_HASH, parseApiKey, secretMatches, type AuditReason } from "@wf/shared/auth";
import type { ApiKeyRecord, Store, Versioned } from "@wf/shared/store";

export type KeyCheck =
  { ok: true; key: Versioned<ApiKeyRecord> } | { ok: false; reason: AuditReason; keyId: string | null };

/**
 * Checks a presented key against its record, read from the store on every request so that a
 * revocation or an expiry holds at once on every replica. The secret is checked before the
 * record's state, so that the audit log says `revoked` or `expired` only for the real key. An
 * unknown id costs what a wrong secret costs: the store's read decodes a decoy record
 * (ApiKeyRepo), and the secret is checked against the decoy's hash.
 */
export async function verifyKey(store: Store, presented: string, now: number): Promise<KeyCheck> {
  const parsed = parseApiKey(presented);
  if (!parsed) return { ok: false, reason: "malformed", keyId: null };
  const { keyId } = parsed;
  const key = await store.apiKeys.get(keyId);
  const matches = secretMatches(parsed.secret, key?.value.secretHash ?? DECOY_SECRET_HASH);
  if (!key) return { ok: false, reason: "unknown_key", keyId };
  if (!matches) return { ok: false, reason: "bad_secret", keyId };
  if (key.value.revokedAt !== null) return { ok: false, reason: "revoked", keyId };
  if (key.value.expiresAt !== null && key.value.expiresAt <= now) return { ok: false, reason: "expired", keyId };
  return { ok: true, key };
}
