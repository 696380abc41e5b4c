import { execFile } from "node:child_process";
import { mkdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { StepCgroups } from "./cgroup";
import type { Isolation } from "./types";

const PROBE_TIMEOUT_MS = 10_000;

/** How the zygotes, and so every step process, are confined on this machine. */
export interface IsolationPlan {
  isolation: Isolation;
  /** The command line to start a zygote in, per network policy; undefined: run it as is. */
  launcher(network: boolean): string[] | undefined;
  cgroups: StepCgroups | undefined;
}

/**
 * The bubblewrap sandbox a zygote runs in. Everything is read-only but the run directories
 * (under `writable`, which also holds the machine's temporary directory, as steps that hand
 * files to other steps or to other programs rely on) and a step's cgroup. A new user namespace
 * whose capabilities are dropped keeps steps out of the other processes on the machine: /proc's
 * environ, mem and the like of the service and the runner need ptrace rights, which a process in
 * a child user namespace never has over them, whatever its uid.
 *
 * The PID namespace is left shared, on purpose: steps (and the tests that watch them) report
 * their pids ($$, getppid) to the world outside, and a process in a PID namespace of its own
 * cannot. The cgroup per step, not the namespace, is what finds and kills everything a step
 * started. No --die-with-parent either: a zygote whose runner died reads the end of its stdin
 * and kills its steps' groups before exiting, which a SIGKILL from the kernel would prevent.
 */
function bwrapArgs(writable: string[], network: boolean, cgroups: StepCgroups | undefined): string[] {
  const binds = [...writable, ...(cgroups ? [cgroups.path] : [])].flatMap((path) => ["--bind", path, path]);
  return bwrapCommand(["--tmpfs", "/dev/shm", ...binds], network ? [] : ["--unshare-net"]);
}

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

/**
 * Finds out what this machine allows, by trying it: bubblewrap with a network namespace, else
 * without one, else nothing; then whether a process in that sandbox can join a pids cgroup.
 */
export async function planIsolation(writable: string[]): Promise<IsolationPlan> {
  let cgroups = StepCgroups.create();
  const network = (await commandWorks([...bwrapArgs(writable, false, cgroups), "true"])) ? "namespace" : "none";
  const filesystem = network === "namespace" || (await commandWorks([...bwrapArgs(writable, true, cgroups), "true"])) ? "bubblewrap" : "none";
  const launcher = (allowNetwork: boolean): string[] | undefined =>
    filesystem === "none" ? undefined : bwrapArgs(writable, allowNetwork || network === "none", cgroups);

  if (cgroups) {
    const probe = join(cgroups.path, "probe");
    mkdirSync(probe, { recursive: true });
    const joined = await commandWorks([...(launcher(false) ?? []), "sh", "-c", 'echo 0 > "$0/cgroup.procs"', probe]);
    try {
      rmdirSync(probe);
    } catch {
      // left for close() to remove
    }
    if (!joined) {
      await cgroups.close();
      cgroups = undefined;
    }
  }
  const limits = [
    "cpu time (RLIMIT_CPU)",
    "memory per process (RLIMIT_DATA)",
    "open files (RLIMIT_NOFILE)",
    "file size (RLIMIT_FSIZE)",
    // Root is exempt from RLIMIT_NPROC.
    ...(cgroups ? ["processes per step (pids cgroup)"] : process.getuid?.() === 0 ? [] : ["processes per user (RLIMIT_NPROC)"]),
    "output size (cut)",
    "artifacts (count and size)",
    "JavaScript heap (isolate)",
  ];
  return { isolation: { network, filesystem, limits }, launcher, cgroups };
}
