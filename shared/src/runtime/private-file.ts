import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** Files that hold secrets (credentials, keys) are readable by their owner only. */
const PRIVATE = 0o600;

/**
 * Makes the data directory private when this call creates it (an existing one keeps its mode,
 * the operator's choice; the secret files in it are 0600 whatever it is).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** Replaces `path` at once (readers see the old or the new text, never a part), mode 0600. */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(tmp, text, { mode: PRIVATE, flag: "wx" });
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * Creates `path` holding `text` unless it exists, and returns what the file then holds: when
 * several processes race, one creation wins (a hard link fails on an existing name) and all of
 * them read the winner's, never a half-written file.
 */
export async function createPrivateFileOnce(path: string, text: string): Promise<string> {
  const existing = await readPrivateFileIfAny(path);
  if (existing !== undefined) return existing;
  await ensurePrivateDir(dirname(path));
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(tmp, text, { mode: PRIVATE, flag: "wx" });
  try {
    await link(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return readPrivateFile(path);
}

/**
 * Reads a file that must be private; one readable by group or others (copied in by hand, say)
 * is made 0600 first, since it holds a secret.
 */
async function readPrivateFile(path: string): Promise<string> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    // Another user's file cannot be changed here; it is still read, as before.
    await chmod(path, PRIVATE).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EPERM") throw err;
    });
  }
  return readFile(path, "utf8");
}

/** The file's text, or undefined when there is no such file. */
export async function readPrivateFileIfAny(path: string): Promise<string | undefined> {
  try {
    return await readPrivateFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}
