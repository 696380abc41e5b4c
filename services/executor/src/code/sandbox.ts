import { chown, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { StepCgroups } from "./cgroup";
import type { EgressProxy } from "../egress/index";
import type { UidBlock } from "./host/uid-block";
import { claimUidBlock } from "./host/uid-block";
import { JsSteps } from "./js-steps";
import type { Python } from "./languages";
import { commandFor, findInterpreters, notInstalled, resolvePython } from "./languages";
import { ProcessSteps } from "./process-step";
import type { SandboxView } from "./sandbox-plan";
import { sandboxView, zygotePlan } from "./sandbox-plan";
import type { CodeRequest, Interactive, Isolation, LogListener, RunResult, SandboxLimits } from "./types";
import { Zygote } from "./zygote";
import { ZygotePool } from "./zygote-pool";

/** How the sandbox is set up on a runner; see docs/configuration.md for the variables behind each. */
export interface SandboxOptions {
  /** The runner's private directory: its zygotes' directories, and in them the steps'. */
  tmpRoot: string;
  /** The host uids the sandbox maps (WF_SANDBOX_UIDS). */
  uids: { first: number; count: number };
  /** Further host paths steps may read (WF_SANDBOX_READ_ONLY). */
  readOnly: string[];
  /** Where the sandbox cannot start, run steps on the host all the same (WF_SANDBOX_UNSAFE). */
  unsafe: boolean;
  egress: EgressProxy | undefined;
}

/**
 * Everything that runs user code, inside a sandbox runner process (never the service's):
 * JavaScript and TypeScript in isolates, every other language in processes forked by a zygote
 * that runs in the sandbox (one per owner with steps running, see ZygotePool). The sandbox is
 * tried at start-up by starting a zygote: where it cannot start (no user namespaces, say), steps
 * other than JavaScript and TypeScript fail with the reason, unless the operator opted to run
 * them on the host all the same.
 */
export class Sandbox {
  private readonly js = new JsSteps();

  private constructor(
    readonly isolation: Isolation,
    private readonly python: Python | Error,
    private readonly interpreters: ReturnType<typeof findInterpreters>,
    private readonly processes: { pool: ZygotePool; steps: ProcessSteps; close: () => Promise<void> } | Error,
  ) {}

  static async start(opts: SandboxOptions): Promise<Sandbox> {
    const hostPath = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
    const interpreters = findInterpreters(hostPath);
    const python = await resolvePython().catch(() => new Error(`${notInstalled("python3", "python3")} (it starts the steps in every language but JavaScript)`));
    const runtimes = { executables: Object.values(interpreters), prefixes: [] as string[] };
    if (!(python instanceof Error)) {
      runtimes.executables.unshift(python.executable);
      runtimes.prefixes.push(...python.prefixes);
    }
    if (python instanceof Error) return new Sandbox(refused(python), python, interpreters, python);
    let view: SandboxView;
    try {
      view = sandboxView(runtimes, opts.readOnly, hostPath);
    } catch (err) {
      return new Sandbox(refused(asError(err)), python, interpreters, asError(err));
    }
    const processes = await startProcesses(opts, python, view, true).catch((err: unknown) => asError(err));
    if (!(processes instanceof Error)) {
      const isolation: Isolation = {
        processes: "sandbox",
        network: "proxy",
        filesystem: "sandbox",
        readable: view.readable,
        uids: "per step",
        seccomp: processes.seccomp,
        limits: limitsOf(processes.cgroups),
      };
      return new Sandbox(isolation, python, interpreters, processes);
    }
    if (!opts.unsafe) return new Sandbox(refused(processes), python, interpreters, processes);
    const unsafe = await startProcesses(opts, python, view, false).catch((err: unknown) => asError(err));
    if (unsafe instanceof Error) return new Sandbox(refused(unsafe), python, interpreters, unsafe);
    const isolation: Isolation = {
      processes: "unsafe",
      reason: processes.message,
      network: "host",
      filesystem: "host",
      readable: ["/"],
      uids: unsafe.stepUids ? "per step" : "none",
      seccomp: unsafe.seccomp,
      limits: limitsOf(unsafe.cgroups),
    };
    return new Sandbox(isolation, python, interpreters, unsafe);
  }

  /** Runs a step; `interactive`: a process whose stdin and stdout are the caller's (a `cli` request). */
  async run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener, interactive?: Interactive): Promise<RunResult> {
    if (interactive && req.language !== "cli") return failed("only a command (an argv) runs as an interactive process");
    if (req.language === "javascript" || req.language === "typescript") return this.js.run(req, limits, signal, onLog);
    const command = commandFor(req, this.interpreters);
    if ("error" in command) return failed(command.error);
    if (this.python instanceof Error) return failed(this.python.message);
    if (this.processes instanceof Error) {
      return failed(
        `code steps in ${req.language} need the sandbox, which cannot start on this runner: ${this.processes.message} (WF_SANDBOX_UNSAFE=1 runs them without it)`,
      );
    }
    let held: Awaited<ReturnType<ZygotePool["acquire"]>>;
    try {
      held = await this.processes.pool.acquire(req.owner ?? "");
    } catch (err) {
      return failed(asError(err).message);
    }
    try {
      return await this.processes.steps.run(req, limits, signal, onLog, held.zygote, command, interactive);
    } finally {
      held.release();
    }
  }

  async close(): Promise<void> {
    this.js.close();
    if (!(this.processes instanceof Error)) await this.processes.close();
  }
}

/** The zygotes and what their steps share; `confined`: in the sandbox, else on the host. */
async function startProcesses(opts: SandboxOptions, python: Python, view: SandboxView, confined: boolean) {
  // Its own: several runners may share tmpRoot.
  const dir = await mkdtemp(join(opts.tmpRoot, "runner-"));
  const uids: UidBlock = await claimUidBlock(opts.uids.first, opts.uids.count).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  // The steps' uids own their run directories: where this process cannot give them files (not
  // root, or the range not mapped here), the sandbox cannot run, and steps without it share its uid.
  const stepUids = await canGiveFiles(dir, uids.hostBase + 1);
  if (confined && stepUids !== true) {
    uids.release();
    await rm(dir, { recursive: true, force: true });
    throw new Error(
      `the sandbox's uids (WF_SANDBOX_UIDS, from ${opts.uids.first}) cannot own files here (${stepUids}): run the service as root, with a range this host maps`,
    );
  }
  // The zygote's uid writes a step's pid into its cgroups; without the sandbox it is this process's.
  const cgroups = StepCgroups.create(confined ? uids.hostBase : undefined);
  const env = { PATH: confined ? view.path : (process.env.PATH ?? view.path), LANG: process.env.LANG ?? "C.UTF-8" };
  let next = 1;
  const pool = new ZygotePool(() =>
    Zygote.start({
      python: python.executable,
      dir: join(dir, `zygote-${next++}`),
      plan: confined ? (dirs) => zygotePlan(view, { ...dirs, cgroups: cgroups?.dirs ?? new Map() }) : undefined,
      uids: confined ? uids : undefined,
      env: { ...env, HOME: "/" },
    }),
  );
  const steps = new ProcessSteps({ baseEnv: env, cgroups, uids: stepUids === true ? uids : undefined, egress: opts.egress });
  const close = async (): Promise<void> => {
    steps.killAll();
    await pool.close();
    await cgroups?.close();
    uids.release();
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
  };
  // Started now, so that neither the first step nor the service, busy with its first steps by
  // then, waits for it; and so that a sandbox that cannot start is known at start-up.
  const first = await pool.warm().catch(async (err: unknown) => {
    await close();
    throw err;
  });
  return { pool, steps, close, seccomp: first.seccomp, cgroups, stepUids: stepUids === true };
}

/** True when this process can give `dir` to `uid` (and take it back), else why not. */
async function canGiveFiles(dir: string, uid: number): Promise<true | string> {
  const self = process.getuid?.() ?? 0;
  try {
    await chown(dir, uid, uid);
    await chown(dir, self, self);
    return true;
  } catch (err) {
    return asError(err).message;
  }
}

function limitsOf(cgroups: StepCgroups | undefined): string[] {
  const by = cgroups?.dirs;
  return [
    ...(by?.has("memory") ? ["memory per step (memory cgroup)"] : []),
    ...(by?.has("pids") ? ["processes per step (pids cgroup)"] : []),
    ...(by?.has("cpu") ? ["CPU per step (cpu cgroup)"] : []),
    "memory per process (RLIMIT_DATA)",
    "cpu time (RLIMIT_CPU)",
    "open files (RLIMIT_NOFILE)",
    "file size (RLIMIT_FSIZE)",
    "private /tmp (size)",
    "output size (cut)",
    "artifacts (count and size)",
    "JavaScript heap (isolate)",
  ];
}

function refused(reason: Error): Isolation {
  return {
    processes: "refused",
    reason: reason.message,
    network: "none",
    filesystem: "none",
    readable: [],
    uids: "none",
    seccomp: false,
    limits: ["JavaScript heap (isolate)"],
  };
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function failed(error: string): RunResult {
  return { ok: false, error, logs: [], artifacts: [], timedOut: false };
}
