import { readdirSync, readFileSync } from "node:fs";
import { descendsFrom, procCmdline, procStatAt, procTable, type ProcStat } from "@wf/testing";

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

/**
 * This process and its descendants (a runner forks its JavaScript host under a uid of its own, a grandchild of this
 * process), each with its command line and its stat fields (ProcStat). Empty without /proc.
 */
function processTree(): Array<{ pid: number; cmdline: string; f: string[] }> {
  const table = procTable();
  const out: Array<{ pid: number; cmdline: string; f: string[] }> = [];
  for (const [pid, { fields }] of table) {
    if (pid !== process.pid && !descendsFrom(pid, process.pid, table)) continue;
    const cmdline = procCmdline(pid);
    if (cmdline !== null) out.push({ pid, cmdline, f: fields });
  }
  return out;
}

export function sampleCpu(): CpuSample {
  return cpuOf(processTree());
}

/**
 * CPU ms so far per role, and the write system calls so far of the nats-servers this process started, from one walk
 * of the process tree.
 */
export function sampleProcesses(): { cpu: CpuSample; natsServerWriteCalls: number | null } {
  const tree = processTree();
  return { cpu: cpuOf(tree), natsServerWriteCalls: natsServerWriteCalls(tree) };
}

function cpuOf(tree: ReturnType<typeof processTree>): CpuSample {
  const out: CpuSample = new Map();
  for (const { pid, cmdline, f } of tree) {
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
  const own = procStatAt(`/proc/${pid}/stat`);
  return own === null ? null : cpuMsOf(own) + descendantsCpuMs(pid);
}

/**
 * CPU ms (user + system) the live descendants of `pid` have used so far: a sandbox runner forks its
 * JavaScript host under a uid of its own, a grandchild of the service that runs every JavaScript step.
 */
function descendantsCpuMs(pid: number): number {
  const table = procTable();
  let ms = 0;
  for (const [other, stat] of table) if (descendsFrom(other, pid, table)) ms += cpuMsOf(stat);
  return ms;
}

/** User and system CPU ms of a stat (utime and stime, fields 14 and 15). */
function cpuMsOf(stat: ProcStat): number {
  return ((Number(stat.fields[11]) + Number(stat.fields[12])) * 1000) / TICKS_PER_SEC;
}

/** A process's live threads by role: less than the process in all, whose total counts the threads that ended too. */
export interface ThreadsCpu {
  /** The main thread: in the all-in-one service, the edge (and the scheduler and approvals). */
  mainThread: number;
  /** Node's worker threads: in the all-in-one service, the executor. */
  workerThreads: number;
  /** The rest of the process's threads: garbage collection, libuv's pool, the inspector. */
  otherThreads: number;
}

/** Where a service process's CPU went: its threads by role, and its live descendants. */
export interface ServiceCpu extends ThreadsCpu {
  /** The process itself, every thread it has had: `processCpuMs` less its descendants. */
  process: number;
  /** Its live descendants: the sandbox runners and their JavaScript hosts, the expression hosts. */
  children: number;
}

/**
 * CPU ms (user + system) so far of `pid`, of its threads by role, and of its descendants; null where /proc is not
 * available.
 */
export function serviceCpuMs(pid: number): ServiceCpu | null {
  const own = procStatAt(`/proc/${pid}/stat`);
  const threads = own === null ? null : threadsCpuMs(pid);
  return own === null || threads === null
    ? null
    : { process: cpuMsOf(own), ...threads, children: descendantsCpuMs(pid) };
}

/**
 * This process's main thread's CPU, to the microsecond: /proc counts in clock ticks (10 ms), which a quick run of
 * light workflows can stay within. Called on the main thread, where the bench runs.
 */
function ownMainThreadMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/** CPU ms (user + system) so far of `pid`'s live threads by role; null where /proc is not available. */
export function threadsCpuMs(pid: number): ThreadsCpu | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const out: ThreadsCpu = { mainThread: 0, workerThreads: 0, otherThreads: 0 };
  for (const tid of tids) {
    // A thread that ended since the listing counts in the process's total only.
    const thread = procStatAt(`/proc/${pid}/task/${tid}/stat`);
    if (thread === null) continue;
    if (Number(tid) === pid) out.mainThread += pid === process.pid ? ownMainThreadMs() : cpuMsOf(thread);
    else if (thread.name === "WorkerThread") out.workerThreads += cpuMsOf(thread);
    else out.otherThreads += cpuMsOf(thread);
  }
  return out;
}

/**
 * Write system calls so far of the nats-servers in `tree` (`syscw` of /proc/<pid>/io): their socket writes and their
 * stores', where a stream on one server writes each message it keeps apart (one `pwrite64` each, counted with strace on
 * 2.9.10, 2026-12-06). Null without /proc.
 */
function natsServerWriteCalls(tree: ReturnType<typeof processTree>): number | null {
  let total: number | null = null;
  for (const { pid, cmdline } of tree) {
    if (roleOf(pid, cmdline) !== "nats-server") continue;
    const calls = writeCalls(pid);
    if (calls !== null) total = (total ?? 0) + calls;
  }
  return total;
}

function writeCalls(pid: number): number | null {
  try {
    const syscw = /^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
    return syscw ? Number(syscw[1]) : null;
  } catch {
    return null;
  }
}
