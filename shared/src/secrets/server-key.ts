import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Config } from "../config/index";
import { ConfigError } from "../errors/wf-error";
import { openKvBucket } from "../nats/buckets";
import { streamPlacement } from "../nats/placement";
import { whileStarting } from "../nats/while-starting";
import { isWrongLastSequence } from "../nats/wrong-last-sequence";
import { keyFilePath, readOrCreateKeyFile, type KeyFile } from "./key-file";

export type ServerKeyKind = keyof KeyFile;

interface ServerKeySpec {
  variable: "WF_SECRETS_KEY" | "WF_WEBHOOK_SECRET_KEY" | "WF_URL_SIGNING_KEY";
  what: string;
  /** The processes that must hold the same key. */
  sharedBy: string;
  /** Its name in the KV bucket `<ns>_edge`, where earlier versions kept it. */
  legacyName: string;
  fromVariable(value: string): Buffer;
}

const sha256 = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

export const SERVER_KEYS: Record<ServerKeyKind, ServerKeySpec> = {
  ownerSecrets: {
    variable: "WF_SECRETS_KEY",
    what: "owner secrets key",
    sharedBy: "every executor, every edge (the console keeps secrets) and the wf CLI",
    legacyName: "owner-secrets-key",
    fromVariable: sha256,
  },
  webhookSecrets: {
    variable: "WF_WEBHOOK_SECRET_KEY",
    what: "webhook secret key",
    sharedBy: "every edge",
    legacyName: "webhook-secret-key",
    fromVariable: sha256,
  },
  urlSigning: {
    variable: "WF_URL_SIGNING_KEY",
    what: "URL signing key",
    sharedBy: "every edge",
    legacyName: "url-signing-key",
    fromVariable: (value) => Buffer.from(value, "utf8"),
  },
};

export interface ServerKeyDeps {
  nc: NatsConnection;
  config: Pick<
    Config,
    | "WF_NAMESPACE"
    | "WF_DATA_DIR"
    | "WF_SECRETS_KEY"
    | "WF_WEBHOOK_SECRET_KEY"
    | "WF_URL_SIGNING_KEY"
    | "WF_REPLICAS"
    | "WF_PLACEMENT_TAGS"
  >;
}

/** The bucket of key checks: one per key, proof of which key a namespace uses, no key material. */
const keyChecksBucket = (ns: string): string => `${ns}_key_checks`;

/**
 * A server key: from its variable when set, else from `<WF_DATA_DIR>/keys.json` (created on
 * first need). Then checked against the namespace's record of the key its data was sealed or
 * signed with (created by the first process): replicas given different keys would each seal
 * what the others cannot open, so a process whose key is not the recorded one does not start.
 */
export async function serverKey(kind: ServerKeyKind, deps: ServerKeyDeps): Promise<Buffer> {
  const spec = SERVER_KEYS[kind];
  const configured = deps.config[spec.variable];
  const key =
    configured !== undefined
      ? spec.fromVariable(configured)
      : Buffer.from((await keyFileFor(spec, deps.config.WF_DATA_DIR))[kind], "hex");
  await checkKey(deps, kind, key, configured !== undefined ? spec.variable : keyFilePath(deps.config.WF_DATA_DIR));
  return key;
}

async function keyFileFor(spec: ServerKeySpec, dataDir: string): Promise<KeyFile> {
  try {
    return await readOrCreateKeyFile(dataDir);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(
      `no ${spec.variable}, and ${keyFilePath(dataDir)} can be neither read nor created (${(err as Error).message}). ` +
        `Set ${spec.variable} (32 characters or more, the same on ${spec.sharedBy}), or make WF_DATA_DIR a directory this process can write.`,
    );
  }
}

function checkOf(kind: ServerKeyKind, key: Buffer): Buffer {
  // Never a valid download signature: those sign `<id>.<expires>`, which holds a dot.
  return createHmac("sha256", key).update(`wf-key-check:${kind}`, "utf8").digest();
}

async function checkKey(
  { nc, config }: ServerKeyDeps,
  kind: ServerKeyKind,
  key: Buffer,
  source: string,
): Promise<void> {
  const spec = SERVER_KEYS[kind];
  const bucket = keyChecksBucket(config.WF_NAMESPACE);
  const check = checkOf(kind, key);
  const kv = await whileStarting(async () => {
    const kv = await openKvBucket(nc, bucket, { history: 1 }, streamPlacement(config, nc));
    try {
      await kv.create(kind, check.toString("hex"));
      return null;
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err;
      return kv;
    }
  });
  if (kv === null) return;
  const recorded = Buffer.from((await whileStarting(() => kv.get(kind)))?.string() ?? "", "hex");
  if (recorded.length === check.length && timingSafeEqual(recorded, check)) return;
  throw new ConfigError(
    `the ${spec.what} of this process (from ${source}) is not the one namespace \`${config.WF_NAMESPACE}\` uses: what either one sealed or signed, the other could not open. ` +
      `Give ${spec.sharedBy} the same key: the same ${spec.variable}, or the same keys.json in WF_DATA_DIR. ` +
      `To replace the key on purpose (what the old one sealed is then lost), delete \`${kind}\` from the KV bucket \`${bucket}\` (\`nats kv del ${bucket} ${kind}\`) and start again.`,
  );
}
