export { SecretBox, WEBHOOK_SECRET_KEY, OWNER_SECRETS_KEY, type ServerKeyName } from "./secret-box";
export { sharedServerKey } from "./server-key";
export { SecretMasker, StreamMasker, MASK, MIN_SECRET_CHARS } from "./masker";
export { setSecret, listSecrets, deleteSecret, openSecrets, openSecret, type SecretInfo } from "./owner-secrets";
