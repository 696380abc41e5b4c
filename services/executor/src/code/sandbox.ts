import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { availableParallelism, totalmem } from "node:os";
import { join } from "node:path";
import { StepCgroups } from "./cgroup";
import type { EgressProxy } from "../egress/index";
import type { UidBlock } from "./host/uid-block";
import { claimUidBlock } from "./host/uid-block";
import { describeJsBounds, JS_POOL, runnerBounds } from "./js-bounds";
import type { HandOffChannel } from "./hand-off-protocol";
import { JsHostHandOff } from "./js-host-hand-off";
import { LocalRunner, type RunnerProcess } from "./local-runner";
import type { Python } from "./languages";
import { commandFor, findInterpreters, notInstalled, resolvePython } from "./languages";
import { describeShares, poolShares, type PoolShares } from "./pool-shares";
import { ProcessSteps } from "./process-step";
import type { TurnState } from "./protocol";
import type { SandboxView } from "./sandbox-plan";
import { sandboxView, zygotePlan } from "./sandbox-plan";
import type { Served } from "./sandbox-server";
import type { CodeRequest, Interactive, Isolation, LogListener, RunResult, SandboxLimits } from "./types";
import { refusedIsolation, runsInIsolate } from "./types";
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
  /**
   * Process steps at once (WF_SANDBOX_STEPS) and their memory together, 0: a quarter of the host's
   * (WF_SANDBOX_STEPS_MEMORY_MB).
   */
  processSteps: { atOnce: number; memoryMb: number };
  egress: EgressProxy | undefined;
  /**
   * The IPC channel to the executor that forked this runner: its JavaScript host is handed over there. Absent: runs are
   * relayed to it.
   */
  handOff?: HandOffChannel;
  /** The Python behind `python3`, when the client that forked this runner found it (runnersPython); asked here otherwise. */
  python?: Python;
}

/**
 * Where JavaScript runs go: relayed to the runner's JavaScript host, or sent to it directly by the client it was handed
 * to.
 */
interface JsRoute {
  run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener): Promise<RunResult>;
  close(): Promise<void>;
}

/** Process steps a runner runs at once per core before anyone waited long: at least what a lone owner gets. */
const PROCESS_STEPS_PER_CORE = 4;

type Processes = { pool: ZygotePool; steps: ProcessSteps; close: () => Promise<void> } | Error;

/**
 * Everything that runs user code, inside a sandbox runner process (never the service's): JavaScript
 * and TypeScript in isolates in a host process of its own (js-host-process.ts), other languages in
 * processes forked by a zygote per owner (ZygotePool). Where the sandbox cannot start (tried at
 * start-up), the other languages fail with the reason unless the operator opted to run them on the
 * host (docs/sandbox.md#start-up-and-the-unsafe-mode).
 */
export class Sandbox implements Served {
  readonly jsPool = JS_POOL;

  private constructor(
    readonly isolation: Isolation,
    private readonly python: Python | Error,
    private readonly interpreters: ReturnType<typeof findInterpreters>,
    private readonly processes: Processes,
    private readonly js: JsRoute,
    private readonly uids: UidBlock | Error,
    readonly processSteps: number,
  ) {}

  static async start(opts: SandboxOptions): Promise<Sandbox> {
    const uids = await claimUidBlock(opts.uids.first, opts.uids.count).catch((err: unknown) => asError(err));
    // A root runner gives it a uid of its own; any other runner is unprivileged already.
    const jsUid =
      process.getuid?.() === 0 && !(uids instanceof Error) && (await mapsUid(uids.jsHost)) ? uids.jsHost : undefined;
    const { isolation, python, interpreters, processes } = await startSteps(opts, uids, describeJsBounds(jsUid));
    // Forked once the runner is in its cgroups (startProcesses), so that it is too; it gets ready
    // while the runner tells it is, and a JavaScript step that comes first waits for it.
    const host: RunnerProcess = {
      entry: "js-host-process",
      args: [],
      cwd: "/",
      uid: jsUid,
      what: "the JavaScript host process",
      isolates: true,
    };
    const js = opts.handOff ? handedOff(new JsHostHandOff(host, opts.handOff)) : relayed(new LocalRunner(host, true));
    return new Sandbox(isolation, python, interpreters, processes, js, uids, opts.processSteps.atOnce);
  }

  /** Runs a step; `interactive`: a process whose stdin and stdout are the caller's (a `cli` request). */
  async run(
    req: CodeRequest,
    limits: SandboxLimits,
    signal: AbortSignal,
    onLog?: LogListener,
    interactive?: Interactive,
    onTurn?: (state: TurnState) => void,
  ): Promise<RunResult> {
    if (interactive && req.language !== "cli") return failed("only a command (an argv) runs as an interactive process");
    if (runsInIsolate(req.language)) return this.js.run(req, limits, signal, onLog);
    const command = commandFor(req, this.interpreters);
    if ("error" in command) return failed(command.error);
    if (this.python instanceof Error) return failed(this.python.message);
    if (this.processes instanceof Error) {
      return failed(
        `code steps in ${req.language} need the sandbox, which cannot start on this runner: ${this.processes.message} (WF_SANDBOX_UNSAFE=1 runs them without it)`,
      );
    }
    const endTurn = await this.processes.steps.turn(req, signal, onTurn);
    if (!endTurn) return failed("aborted");
    let held: Awaited<ReturnType<ZygotePool["acquire"]>>;
    try {
      held = await this.processes.pool.acquire(req.owner ?? "");
    } catch (err) {
      endTurn();
      return failed(asError(err).message);
    }
    try {
      return await this.processes.steps.run(req, limits, signal, onLog, held.zygote, command, interactive);
    } finally {
      held.release();
      endTurn();
    }
  }

  async close(): Promise<void> {
    await this.js.close();
    if (!(this.processes instanceof Error)) await this.processes.close();
    if (!(this.uids instanceof Error)) this.uids.release();
  }
}

/** JavaScript runs relayed to a host this runner keeps: a standalone runner's, whose clients are elsewhere. */
function relayed(runner: LocalRunner): JsRoute {
  runner.live();
  return {
    run: (req, limits, signal, onLog) => runner.live().run(req, limits, signal, onLog),
    close: () => runner.close(),
  };
}

/** A host handed to the executor that forked this runner: it sends JavaScript runs there itself. */
function handedOff(handOff: JsHostHandOff): JsRoute {
  handOff.offer();
  return {
    run: () =>
      Promise.resolve(
        failed("JavaScript runs go to this runner's JavaScript host, handed to its client, not to the runner"),
      ),
    close: () => Promise.resolve(handOff.close()),
  };
}

/** The sandbox of process steps, tried at start-up; where it cannot start, why. */
async function startSteps(
  opts: SandboxOptions,
  uids: UidBlock | Error,
  jsBounds: string,
): Promise<{
  isolation: Isolation;
  python: Python | Error;
  interpreters: ReturnType<typeof findInterpreters>;
  processes: Processes;
}> {
  const hostPath = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  const interpreters = findInterpreters(hostPath);
  const python = await (opts.python ? Promise.resolve(opts.python) : resolvePython()).catch(
    () => new Error(`${notInstalled("python3", "python3")} (it starts the steps in every language but JavaScript)`),
  );
  const runtimes = { executables: Object.values(interpreters), prefixes: [] as string[] };
  if (!(python instanceof Error)) {
    runtimes.executables.unshift(python.executable);
    runtimes.prefixes.push(...python.prefixes);
  }
  const none = (err: Error) => ({ isolation: refused(err, jsBounds), python, interpreters, processes: err });
  if (python instanceof Error) return none(python);
  if (uids instanceof Error) return none(uids);
  let view: SandboxView;
  try {
    view = sandboxView(runtimes, opts.readOnly, hostPath);
  } catch (err) {
    return none(asError(err));
  }
  const processes = await startProcesses(opts, uids, python, view, true).catch((err: unknown) => asError(err));
  if (!(processes instanceof Error)) {
    const isolation: Isolation = {
      processes: "sandbox",
      network: "proxy",
      filesystem: "sandbox",
      readable: view.readable,
      uids: "per step",
      seccomp: processes.seccomp,
      limits: limitsOf(processes, jsBounds),
    };
    return { isolation, python, interpreters, processes };
  }
  if (!opts.unsafe) return none(processes);
  const unsafe = await startProcesses(opts, uids, python, view, false).catch((err: unknown) => asError(err));
  if (unsafe instanceof Error) return none(unsafe);
  const isolation: Isolation = {
    processes: "unsafe",
    reason: processes.message,
    network: "host",
    filesystem: "host",
    readable: ["/"],
    uids: unsafe.stepUids ? "per step" : "none",
    seccomp: unsafe.seccomp,
    limits: limitsOf(unsafe, jsBounds),
  };
  return { isolation, python, interpreters, processes: unsafe };
}

/** The zygotes and what their steps share; `confined`: in the sandbox, else on the host. */
async function startProcesses(
  opts: SandboxOptions,
  uids: UidBlock,
  python: Python,
  view: SandboxView,
  confined: boolean,
) {
  // Its own: several runners may share tmpRoot.
  const dir = await mkdtemp(join(opts.tmpRoot, "runner-"));
  // The steps' uids own their run directories: where this process cannot give them files (not
  // root, or the range not mapped here), the sandbox cannot run, and steps without it share its uid.
  const stepUids = await canGiveFiles(dir, uids.firstStep);
  if (confined && stepUids !== true) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(
      `the sandbox's uids (WF_SANDBOX_UIDS, from ${opts.uids.first}) cannot own files here (${stepUids}): run the service as root, with a range this host maps`,
    );
  }
  // The zygote's uid writes a step's pid into its cgroups; without the sandbox it is this process's.
  const runner = runnerBounds();
  const memoryMb = opts.processSteps.memoryMb || Math.floor(totalmem() / 4 / 2 ** 20);
  const cgroups = StepCgroups.create(confined ? uids.hostBase : undefined, { memoryMb, cpus: runner.cpus });
  // Before the first zygote starts: the zygotes, forked from this process, start in its cgroups.
  const runnerLimits = cgroups?.confineRunner(runner) ?? [];
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
  const size = Math.min(opts.processSteps.atOnce, PROCESS_STEPS_PER_CORE * availableParallelism());
  const shares = poolShares(size, opts.processSteps.atOnce);
  const steps = new ProcessSteps({
    baseEnv: env,
    size,
    shares,
    cgroups,
    uids: stepUids === true ? uids : undefined,
    egress: opts.egress,
  });
  const close = async (): Promise<void> => {
    steps.killAll();
    await pool.close();
    await cgroups?.close();
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
  };
  // Started now, so that neither the first step nor the service, busy with its first steps by
  // then, waits for it; and so that a sandbox that cannot start is known at start-up.
  const first = await pool.warm().catch(async (err: unknown) => {
    await close();
    throw err;
  });
  return { pool, steps, close, seccomp: first.seccomp, cgroups, runnerLimits, shares, stepUids: stepUids === true };
}

/**
 * Whether `uid` exists in this process's user namespace (a root mapped alone, as by `unshare --map-root-user`, has no
 * other).
 */
async function mapsUid(uid: number): Promise<boolean> {
  const map = await readFile("/proc/self/uid_map", "utf8").catch(() => "0 0 4294967295");
  return map
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .some(([inside, , count]) => inside! <= uid && uid < inside! + count!);
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

function limitsOf(
  { cgroups, runnerLimits, shares }: { cgroups: StepCgroups | undefined; runnerLimits: string[]; shares: PoolShares },
  jsBounds: string,
): string[] {
  const by = cgroups?.dirs;
  return [
    ...runnerLimits,
    ...(by?.has("cpu") ? [`runner and its steps together ${cgroups!.bound.cpus} CPU (cpu cgroup)`] : []),
    `${shares.limit} process steps at once, of which an owner holds ${describeShares(shares)}`,
    ...(by?.has("memory") ? [`process steps together ${cgroups!.bound.memoryMb} MB (memory cgroup)`] : []),
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
    jsBounds,
  ];
}

function refused(reason: Error, jsBounds: string): Isolation {
  return refusedIsolation(reason.message, [jsBounds]);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function failed(error: string): RunResult {
  return { ok: false, error, logs: [], artifacts: [], timedOut: false };
}
