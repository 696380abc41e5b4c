import { retireLegacyKey, serverKey, type ServerKeyDeps } from "@wf/shared/secrets";
import type { Logger } from "@wf/shared/log";

/**
 * The secret that signs download URLs: WF_URL_SIGNING_KEY, else the data directory's keys.json
 * (serverKey), the same on every replica. One that earlier versions kept in `<ns>_edge` is
 * erased: the URLs it signed stop working.
 */
export async function resolveSigningKey(deps: ServerKeyDeps & { log: Logger }): Promise<Buffer> {
  const key = await serverKey("urlSigning", deps);
  await retireLegacyKey("urlSigning", deps);
  return key;
}
