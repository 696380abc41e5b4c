import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Without the sandbox: a step's directory on the host (its cwd and HOME, with WF_ARTIFACTS_DIR inside), given to its
 * uid. In the sandbox the zygote makes it, in its own `runs` directory.
 */
export function hostRunDir(parent: string, uid: number, self: number): string {
  const dir = mkdtempSync(join(parent, "run-"));
  mkdirSync(join(dir, "artifacts"));
  if (uid !== self) {
    chownSync(dir, uid, uid);
    chownSync(join(dir, "artifacts"), uid, uid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * Removes a finished step's run directory: most are as they were made (it and its empty artifacts directory), two
 * removals on this thread; a directory with anything else in it goes through rm's walk, on libuv's thread pool.
 */
export async function removeRunDir(dir: string): Promise<void> {
  try {
    rmdirSync(join(dir, "artifacts"));
    rmdirSync(dir);
  } catch {
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
  }
}
