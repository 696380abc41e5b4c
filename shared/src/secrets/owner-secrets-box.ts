import type { Logger } from "../log/index";
import type { SecretRecord, Store } from "../store/index";
import { retireLegacyKey } from "./legacy-key";
import { resealAll, type SealedRecords } from "./reseal";
import { SecretBox } from "./secret-box";
import { serverKey, type ServerKeyDeps } from "./server-key";

/**
 * The box of the owners' secrets (WF_SECRETS_KEY, else keys.json), as the executor and the wf
 * CLI open it: the same key found the same way. The first opening after an upgrade moves the
 * secrets sealed under the key earlier versions kept in `<ns>_edge` to this one.
 */
export async function openOwnerSecretsBox(deps: ServerKeyDeps & { store: Store; log: Logger }): Promise<SecretBox> {
  const box = new SecretBox(await serverKey("ownerSecrets", deps));
  await retireLegacyKey("ownerSecrets", deps, (old) => resealAll(ownerSecretRecords(deps.store), old, box));
  return box;
}

function ownerSecretRecords(store: Store): SealedRecords<SecretRecord> {
  return {
    listAll: () => store.secrets.listAll(),
    get: (id) => store.secrets.get(id),
    update: (record, version) => store.secrets.update(record, version),
    sealed: (record) => ({ text: record.sealed, context: record.id }),
    withSealed: (record, text) => ({ ...record, sealed: text }),
  };
}
