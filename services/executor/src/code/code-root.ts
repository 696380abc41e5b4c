import { readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const OWNER_FILE = ".owner.json";

/** Who made a root: a process of one boot of one host (boot id), in one PID namespace. */
const Owner = z.object({ bootId: z.string().min(1), pidNamespace: z.string().min(1), pid: z.number().int().positive() });
type Owner = z.infer<typeof Owner>;

/** This process as an owner; null where the kernel does not say (not Linux), and nothing is swept there. */
function self(): Owner | null {
  try {
    return {
      bootId: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
      pidNamespace: readlinkSync("/proc/self/ns/pid"),
      pid: process.pid,
    };
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * A private directory `<prefix>*` under `parent` for one process's code runs, marked with its
 * owner. A process killed with SIGKILL cannot remove its own, and its run directories may hold
 * the files of user code, so each new one first removes the roots under `parent` whose owner is
 * gone: made on this boot, in this PID namespace, by a process that no longer exists. A root of
 * another host or container sharing `parent`, or without an owner file, is never touched.
 */
export async function makeCodeRoot(parent: string, prefix: string): Promise<string> {
  const me = self();
  if (me) await sweep(parent, prefix, me);
  const root = await mkdtemp(join(parent, prefix));
  if (me) await writeFile(join(root, OWNER_FILE), JSON.stringify(me), { mode: 0o600 });
  return root;
}

async function sweep(parent: string, prefix: string, me: Owner): Promise<void> {
  const names = await readdir(parent).catch(() => []);
  for (const name of names.filter((n) => n.startsWith(prefix))) {
    const dir = join(parent, name);
    const owner = await readOwner(dir);
    if (owner === null || owner.bootId !== me.bootId || owner.pidNamespace !== me.pidNamespace || alive(owner.pid)) continue;
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
  }
}

async function readOwner(dir: string): Promise<Owner | null> {
  const text = await readFile(join(dir, OWNER_FILE), "utf8").catch(() => null);
  if (text === null) return null;
  try {
    const parsed = Owner.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
