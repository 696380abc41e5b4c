import { DECOY_SECRET_HASH } from "../auth/api-key";
import type { ApiKeyRecord } from "./records";

/**
 * What a read of an API key id that no key has decodes instead (the stores' `apiKeys.get`), so
 * that an unknown id costs the edge the decoding a stored key costs: a record of a stored key's
 * shape and size (ids as long as newId's, two scopes, used once), whose secret hash no secret
 * has. Never stored, and no key can have its id: newId never writes an `o`.
 */
export const DECOY_API_KEY: ApiKeyRecord = {
  id: "01decoy0000000000000",
  name: "",
  ownerId: "01decoy00000000owner",
  scopes: ["WORKFLOW_READ", "WORKFLOW_EXECUTE"],
  secretHash: DECOY_SECRET_HASH,
  createdAt: 1_800_000_000_000,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: 1_800_000_000_000,
};
