import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors/wf-error";
import { createPrivateFileOnce } from "../runtime/private-file";

const Hex256 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 hex digits");

/** `<WF_DATA_DIR>/keys.json`: the server keys of an install whose variables do not set them. */
export const KeyFile = z.object({ ownerSecrets: Hex256, webhookSecrets: Hex256, urlSigning: Hex256 });
export type KeyFile = z.infer<typeof KeyFile>;

export function keyFilePath(dataDir: string): string {
  return join(resolve(dataDir), "keys.json");
}

/**
 * The data directory's key file, created (mode 0600, every key 256 random bits) by the first
 * process to need it; processes that race read the one that won. It never goes to NATS or
 * MongoDB: a copy of the store alone does not decrypt.
 */
export async function readOrCreateKeyFile(dataDir: string): Promise<KeyFile> {
  const path = keyFilePath(dataDir);
  const fresh: KeyFile = { ownerSecrets: random(), webhookSecrets: random(), urlSigning: random() };
  const text = await createPrivateFileOnce(path, `${JSON.stringify(fresh, null, 2)}\n`);
  let parsed;
  try {
    parsed = KeyFile.safeParse(JSON.parse(text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success)
    throw new ConfigError(
      `${path} is not a key file of this service (JSON with ownerSecrets, webhookSecrets, urlSigning: 64 hex digits each)`,
    );
  return parsed.data;
}

function random(): string {
  return randomBytes(32).toString("hex");
}
