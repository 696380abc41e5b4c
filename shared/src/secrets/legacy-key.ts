import {
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  type JetStreamManager,
  type StoredMsg,
} from "@nats-io/jetstream";
import type { Logger } from "../log/index";
import { SecretBox } from "./secret-box";
import { SERVER_KEYS, type ServerKeyDeps, type ServerKeyKind } from "./server-key";

/** Where earlier versions kept the server keys, in clear: `<ns>_edge`. */
export const legacyKeyBucket = (ns: string): string => `${ns}_edge`;

/** What a re-sealing pass did: how many records it moved to the new key, which it could not open. */
export interface ResealOutcome {
  resealed: number;
  unreadable: string[];
}

/**
 * Takes a server key out of the store, where earlier versions kept it: while `<ns>_edge` holds it,
 * `reseal` moves every record sealed under it to the new key, and only then is the key erased. A
 * crash before the erasure leaves it, and the next start runs the pass again; a key that sealed
 * nothing (the URL signing key) is erased at once (docs/operations.md#upgrades).
 */
export async function retireLegacyKey(
  kind: ServerKeyKind,
  deps: ServerKeyDeps & { log: Logger },
  reseal?: (old: SecretBox) => Promise<ResealOutcome>,
): Promise<void> {
  const { what, variable, legacyName } = SERVER_KEYS[kind];
  const bucket = legacyKeyBucket(deps.config.WF_NAMESPACE);
  const jsm = await jetstreamManager(deps.nc);
  const read = await legacyReader(jsm, bucket, legacyName);
  const entry = await read?.();
  if (!read || !entry) return;
  const log = deps.log.child({ key: what });
  if (reseal) {
    const { resealed, unreadable } = await reseal(new SecretBox(Buffer.from(entry.string(), "hex")));
    log.info(`re-sealed ${resealed} records under the ${what} of ${variable} (or keys.json)`);
    if (unreadable.length > 0)
      log.warn("records sealed under neither the old nor the new key were left as they are: they read as missing", {
        ids: unreadable,
      });
  }
  try {
    await jsm.streams.deleteMessage(`KV_${bucket}`, entry.seq, true);
  } catch (err) {
    // Another replica erased it first (the server names that in more than one way).
    if ((await read())?.seq === entry.seq) throw err;
  }
  log.info(`removed the ${what} from the KV bucket ${bucket}`);
}

/**
 * Reads the key's entry, if the bucket exists: by a direct get of that key alone, which a
 * service's permissions allow for its own keys only (never a read of the whole bucket).
 */
async function legacyReader(
  jsm: JetStreamManager,
  bucket: string,
  name: string,
): Promise<(() => Promise<StoredMsg | null>) | null> {
  const stream = `KV_${bucket}`;
  let direct: boolean;
  try {
    direct = (await jsm.streams.info(stream)).config.allow_direct === true;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null;
    throw err;
  }
  const query = { last_by_subj: `$KV.${bucket}.${name}` };
  return async () => {
    const msg = direct ? await jsm.direct.getMessage(stream, query) : await jsm.streams.getMessage(stream, query);
    // A deleted or purged key ends in a marker.
    return msg === null || msg.header?.get("KV-Operation") ? null : msg;
  };
}
