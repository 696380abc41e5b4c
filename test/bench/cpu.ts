import { readFileSync, readdirSync } from "node:fs";

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times: 100 on every mainstream kernel build. */
const TICKS_PER_SEC = 100;

/** CPU ms used so far per process role; empty where /proc is not available. */
export type CpuSample = Map<string, number>;

/** The sandbox's Python zygote (zygote/main.py; in the sandbox, zygote/enter.py starting /run/wf/lib/main.py). */
const ZYGOTE = /\/zygote\/(main|enter)\.py|\/run\/wf\/lib\/main\.py/;

/**
 * Which process does what: this one (bench client + executor + scheduler), its nats-server, the sandbox runners and
 * their JavaScript hosts (which run JavaScript steps in isolates), the Python zygote, whose reaped step children count
 * in its own totals, and the processes that evaluate the executor's expressions.
 */
function roleOf(pid: number, cmdline: string): string | null {
  if (pid === process.pid) return "service (executor + bench client)";
  if (cmdline.includes("sandbox-process") || cmdline.includes("js-host-process"))
    return "sandbox runners (JavaScript steps)";
  if (ZYGOTE.test(cmdline)) return "Python zygote + steps";
  if (cmdline.includes("eval-host.mjs")) return "expression hosts";
  if (cmdline.includes("nats-server")) return "nats-server";
  return null;
}

/** Whether `pid` is `root` or descends from it, by the parents read from /proc (16 generations at most). */
function inTree(pid: number, root: number, parents: ReadonlyMap<number, { ppid: number }>): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 16; hops++) {
    if (p === root) return true;
    const parent = parents.get(p)?.ppid;
    if (parent === undefined) return false;
    p = parent;
  }
  return false;
}

/**
 * This process and its descendants (a runner forks its JavaScript host under a uid of its own, a grandchild of this
 * process), each with its command line and the fields of its stat file after "(comm)": state(3) ppid(4) ... minflt(10)
 * cminflt(11) ... utime(14) stime(15) cutime(16) cstime(17), 1-based, so field n is at n - 3. Empty without /proc.
 */
function processTree(): Array<{ pid: number; cmdline: string; f: string[] }> {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const stats = new Map<number, { ppid: number; f: string[] }>();
  for (const d of pids) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(d), { ppid: Number(f[1]), f });
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const out: Array<{ pid: number; cmdline: string; f: string[] }> = [];
  for (const [pid, { f }] of stats) {
    if (!inTree(pid, process.pid, stats)) continue;
    try {
      out.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8"), f });
    } catch {
      // Ended meanwhile.
    }
  }
  return out;
}

export function sampleCpu(): CpuSample {
  const out: CpuSample = new Map();
  for (const { pid, cmdline, f } of processTree()) {
    const role = roleOf(pid, cmdline);
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    if (role) out.set(role, (out.get(role) ?? 0) + (ticks * 1000) / TICKS_PER_SEC);
  }
  return out;
}

/**
 * Minor page faults so far of the Python zygotes in this process's tree, and of their reaped children (the processes
 * of process steps); null without /proc. On a guest whose page faults trap to the hypervisor these are what a process
 * step costs most: each page a fork shares with the zygote and either of them writes is one.
 */
export function zygoteFaults(): { zygote: number; steps: number } | null {
  const tree = processTree();
  const commands = new Map(tree.map(({ pid, cmdline }) => [pid, cmdline]));
  // `python -I -B …/main.py …`: the zygote, and the steps' processes forked from it (enter.py names it later on).
  const isMain = (cmdline: string | undefined): boolean =>
    cmdline !== undefined && /^[^\0]*\0-I\0-B\0[^\0]*\/main\.py\0/.test(cmdline);
  let seen = false;
  const out = { zygote: 0, steps: 0 };
  // The zygotes only: the steps' processes alive now, forked from a zygote with its command line, count once reaped.
  for (const { cmdline, f } of tree) {
    if (!isMain(cmdline) || isMain(commands.get(Number(f[1])))) continue;
    seen = true;
    out.zygote += Number(f[7]);
    out.steps += Number(f[8]);
  }
  return seen ? out : null;
}

/** CPU ms per role between two samples, divided by `per` (e.g. per workflow). */
export function cpuBetween(before: CpuSample, after: CpuSample, per: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [role, ms] of after) out[role] = Math.round(((ms - (before.get(role) ?? 0)) / per) * 100) / 100;
  return out;
}

/**
 * CPU ms (user + system) one process and its live descendants (an edge's cluster workers) have
 * used so far; null where /proc is not available.
 */
export function processCpuMs(pid: number): number | null {
  const own = statOf(pid);
  return own === null ? null : own.cpuMs + descendantsCpuMs(pid);
}

/**
 * CPU ms (user + system) the live descendants of `pid` have used so far: a sandbox runner forks its
 * JavaScript host under a uid of its own, a grandchild of the service that runs every JavaScript step.
 */
function descendantsCpuMs(pid: number): number {
  const stats = new Map<number, Stat>();
  for (const d of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    const stat = statOf(Number(d));
    if (stat) stats.set(Number(d), stat);
  }
  let ms = 0;
  for (const [other, stat] of stats) if (other !== pid && inTree(other, pid, stats)) ms += stat.cpuMs;
  return ms;
}

function statOf(pid: number): Stat | null {
  return statAt(`/proc/${pid}/stat`);
}

interface Stat {
  /** The command's (or thread's) name. */
  name: string;
  ppid: number;
  cpuMs: number;
}

/** A process's or a thread's stat file (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`); null once it has ended. */
function statAt(path: string): Stat | null {
  try {
    const stat = readFileSync(path, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
      ppid: Number(f[1]),
      cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SEC,
    };
  } catch {
    return null;
  }
}

/**
 * Where a service process's CPU went: its threads by role, and its live descendants. The threads
 * add up to less than the process (threads that ended are counted in its total only).
 */
export interface ServiceCpu {
  /** The process itself, every thread it has had: `processCpuMs` less its descendants. */
  process: number;
  /** The main thread: in the all-in-one service, the edge (and the scheduler and approvals). */
  mainThread: number;
  /** Node's worker threads: in the all-in-one service, the executor. */
  workerThreads: number;
  /** The rest of the process's threads: garbage collection, libuv's pool, the inspector. */
  otherThreads: number;
  /** Its live descendants: the sandbox runners and their JavaScript hosts, the expression hosts. */
  children: number;
}

/**
 * CPU ms (user + system) so far of `pid`, of its threads by role, and of its descendants; null where /proc is not
 * available.
 */
export function serviceCpuMs(pid: number): ServiceCpu | null {
  const own = statOf(pid);
  if (own === null) return null;
  const out: ServiceCpu = {
    process: own.cpuMs,
    mainThread: 0,
    workerThreads: 0,
    otherThreads: 0,
    children: descendantsCpuMs(pid),
  };
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  for (const tid of tids) {
    // A thread that ended since the listing counts in the process's total only.
    const thread = statAt(`/proc/${pid}/task/${tid}/stat`);
    if (thread === null) continue;
    if (Number(tid) === pid) out.mainThread += thread.cpuMs;
    else if (thread.name === "WorkerThread") out.workerThreads += thread.cpuMs;
    else out.otherThreads += thread.cpuMs;
  }
  return out;
}
