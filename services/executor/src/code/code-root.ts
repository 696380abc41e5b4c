import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProcessOwner } from "./host/process-owner";
import { currentOwner, ownerGone, readOwner } from "./host/process-owner";

const OWNER_FILE = ".owner.json";

/**
 * A private directory `<prefix>*` under `parent` for one process's code runs, marked with its
 * owner. A process killed with SIGKILL cannot remove its own, and its run directories may hold
 * the files of user code, so each new one first removes the roots under `parent` whose owner is
 * gone: made on this boot, in this PID namespace, by a process that no longer exists. A root of
 * another host or container sharing `parent`, or without an owner file, is never touched.
 */
export async function makeCodeRoot(parent: string, prefix: string): Promise<string> {
  const me = currentOwner();
  if (me) await sweep(parent, prefix, me);
  const root = await mkdtemp(join(parent, prefix));
  if (me) await writeFile(join(root, OWNER_FILE), JSON.stringify(me), { mode: 0o600 });
  return root;
}

async function sweep(parent: string, prefix: string, me: ProcessOwner): Promise<void> {
  const names = await readdir(parent).catch(() => []);
  for (const name of names.filter((n) => n.startsWith(prefix))) {
    const dir = join(parent, name);
    const owner = await readOwner(join(dir, OWNER_FILE));
    if (owner === null || !ownerGone(owner, me)) continue;
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
  }
}
