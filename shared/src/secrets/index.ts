export { SecretBox } from "./secret-box";
export { serverKey, SERVER_KEYS, type ServerKeyDeps, type ServerKeyKind } from "./server-key";
export { KeyFile } from "./key-file";
export { retireLegacyKey, legacyKeyBucket } from "./legacy-key";
export { resealAll, type SealedRecords } from "./reseal";
export { openOwnerSecretsBox } from "./owner-secrets-box";
export { SecretMasker, StreamMasker, MASK, MIN_SECRET_CHARS } from "./masker";
export {
  setSecret,
  listSecrets,
  deleteSecret,
  openSecrets,
  openSecret,
  MAX_SECRETS_PER_OWNER,
  type SecretInfo,
} from "./owner-secrets";
