import { readFileSync, readlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { z } from "zod";

/**
 * Who holds a resource shared on a host (a directory, a block of uids): a process of one boot of one host, in one PID
 * namespace.
 */
export const ProcessOwner = z.object({
  bootId: z.string().min(1),
  pidNamespace: z.string().min(1),
  pid: z.number().int().positive(),
});
export type ProcessOwner = z.infer<typeof ProcessOwner>;

/** This process as an owner; null where the kernel does not say (not Linux). */
export function currentOwner(): ProcessOwner | null {
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

/**
 * Whether `owner` is certainly gone: a process of this boot and PID namespace that no longer
 * exists. One of another host or container sharing the resource is never judged gone.
 */
export function ownerGone(owner: ProcessOwner, me: ProcessOwner): boolean {
  if (owner.bootId !== me.bootId || owner.pidNamespace !== me.pidNamespace) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** The owner recorded in `file`, or null when there is none or it cannot be read. */
export async function readOwner(file: string): Promise<ProcessOwner | null> {
  const text = await readFile(file, "utf8").catch(() => null);
  if (text === null) return null;
  try {
    const parsed = ProcessOwner.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
