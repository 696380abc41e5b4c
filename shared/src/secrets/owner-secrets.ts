import { WfError } from "../errors/wf-error";
import { SECRET_NAME_PATTERN, secretId, type SecretRecord, type Store } from "../store/index";
import { MIN_SECRET_CHARS } from "./masker";
import type { SecretBox } from "./secret-box";

const MAX_SECRET_BYTES = 64 * 1024;
/**
 * Secrets one account keeps at most: a run that reads any secret masks every string of its results against each of
 * the owner's values on the executor's thread, so their number bounds what one tenant's masking costs the others
 * (5,000 secrets made a run's masking hold the thread for seconds).
 */
export const MAX_SECRETS_PER_OWNER = 100;

/** What the owners' secrets look like from outside: never the value. */
export interface SecretInfo {
  name: string;
  createdAt: number;
  updatedAt: number;
}

function checkName(name: string): void {
  if (!SECRET_NAME_PATTERN.test(name)) {
    throw new WfError(
      "VALIDATION_FAILED",
      `secret name \`${name}\` must start with a letter or \`_\` and use only letters, digits and \`_\` (64 at most): it is read as {{ secrets.${name} }}`,
    );
  }
}

/** Creates or replaces one owner's secret; the value is sealed before it is stored. */
export async function setSecret(
  store: Store,
  box: SecretBox,
  ownerId: string,
  name: string,
  value: string,
  now = Date.now(),
): Promise<SecretInfo> {
  checkName(name);
  if (value.length < MIN_SECRET_CHARS) {
    throw new WfError(
      "VALIDATION_FAILED",
      `a secret needs at least ${MIN_SECRET_CHARS} characters: shorter values cannot be masked in results and logs`,
    );
  }
  if (Buffer.byteLength(value, "utf8") > MAX_SECRET_BYTES)
    throw new WfError("VALIDATION_FAILED", `a secret holds at most ${MAX_SECRET_BYTES} bytes`);
  const id = secretId(ownerId, name);
  const sealed = box.seal(value, id);
  for (;;) {
    const current = await store.secrets.get(id);
    try {
      if (current === null) {
        // Counted before the write: two concurrent creates may both pass it by one.
        if ((await store.secrets.listByOwner(ownerId)).length >= MAX_SECRETS_PER_OWNER)
          throw new WfError(
            "CONFLICT",
            `an account keeps at most ${MAX_SECRETS_PER_OWNER} secrets: delete one it no longer needs first`,
          );
        await store.secrets.create({ id, ownerId, name, sealed, createdAt: now, updatedAt: now });
        return { name, createdAt: now, updatedAt: now };
      }
      await store.secrets.update({ ...current.value, sealed, updatedAt: now }, current.version);
      return { name, createdAt: current.value.createdAt, updatedAt: now };
    } catch (err) {
      // Another writer moved first: the last one wins, as a plain `set` should.
      if (!(err instanceof WfError) || (err.code !== "CAS_CONFLICT" && err.code !== "ALREADY_EXISTS")) throw err;
    }
  }
}

export async function listSecrets(store: Store, ownerId: string): Promise<SecretInfo[]> {
  return (await store.secrets.listByOwner(ownerId)).map(info);
}

/** False when the owner has no secret of that name. */
export async function deleteSecret(store: Store, ownerId: string, name: string): Promise<boolean> {
  checkName(name);
  const id = secretId(ownerId, name);
  if ((await store.secrets.get(id)) === null) return false;
  await store.secrets.delete(id);
  return true;
}

/**
 * Every secret of an owner, opened. A secret sealed under another key (WF_SECRETS_KEY changed)
 * cannot be opened: it is left out and named in `unreadable`, for the caller to report.
 */
export async function openSecrets(
  store: Store,
  box: SecretBox,
  ownerId: string,
): Promise<{ values: Record<string, string>; unreadable: string[] }> {
  const values: Record<string, string> = {};
  const unreadable: string[] = [];
  for (const record of await store.secrets.listByOwner(ownerId)) {
    try {
      values[record.name] = box.open(record.sealed, record.id).toString("utf8");
    } catch {
      unreadable.push(record.name);
    }
  }
  return { values, unreadable };
}

/** One secret, opened; undefined when the owner has none of that name or it cannot be opened. */
export async function openSecret(
  store: Store,
  box: SecretBox,
  ownerId: string,
  name: string,
): Promise<string | undefined> {
  const record = await store.secrets.get(secretId(ownerId, name));
  if (record === null) return undefined;
  try {
    return box.open(record.value.sealed, record.value.id).toString("utf8");
  } catch {
    return undefined;
  }
}

function info(r: SecretRecord): SecretInfo {
  return { name: r.name, createdAt: r.createdAt, updatedAt: r.updatedAt };
}
