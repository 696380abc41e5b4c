import { execFile } from "node:child_process";
import { promisify } from "node:util";

const PROBE_TIMEOUT_MS = 10_000;

/**
 * The bubblewrap command line every sandbox of the executor starts from: the machine's root
 * read-only, a fresh /dev and /proc, and a user and IPC namespace without capabilities. `mounts`
 * lay what a sandbox may write over it; `options` add its other namespaces and behaviours.
 */
export function bwrapCommand(mounts: string[], options: string[]): string[] {
  return [
    "bwrap",
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    ...mounts,
    "--unshare-user",
    "--unshare-ipc",
    ...options,
    "--cap-drop", "ALL",
    "--",
  ];
}

/** Whether a command runs and exits 0 here: what a machine allows is found out by trying it. */
export async function commandWorks(command: string[]): Promise<boolean> {
  const [file, ...args] = command;
  try {
    await promisify(execFile)(file!, args, { timeout: PROBE_TIMEOUT_MS });
    return true;
  } catch {
    return false;
  }
}

