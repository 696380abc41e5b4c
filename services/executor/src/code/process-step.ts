import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync } from "node:fs";
import { chown } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { basename, join } from "node:path";
import { ArtifactLimitError, readArtifactStream } from "./artifacts";
import type { StepCgroup, StepCgroups } from "./cgroup";
import type { EgressProxy, EgressSession, SessionRefusal } from "../egress/index";
import { FairSlots } from "./fair-slots";
import { ownerOf, type PoolShares } from "./pool-shares";
import { narrowing } from "../egress/index";
import type { BaseEnv } from "./env";
import { codeStepEnv, processEnv } from "./env";
import type { UidBlock } from "./host/uid-block";
import { stepUid, UidSlots } from "./host/uid-slots";
import { LogLines, processResult } from "./output";
import { hostRunDir, removeRunDir } from "./run-dir";
import { afterThisTurnsWrites, type TurnState } from "./protocol";
import type { StepProcess } from "./supervise";
import { supervise } from "./supervise";
import type { Artifact, CodeRequest, Interactive, LogListener, Refusals, RunResult, SandboxLimits } from "./types";
import { StepSpares, type PreparedStep, type StepShape } from "./step-spares";
import type { ProcessLimits, ProcessSetup, Zygote, ZygoteCommand, ZygoteProcess } from "./zygote";

/** The port of a step's proxy in its own network namespace. */
const PROXY_PORT = 3128;
/** What is kept of an interactive process's stdout for its result: its stdout is its caller's. */
const INTERACTIVE_OUTPUT_BYTES = 64 * 1024;
/** Refused connections a step's result names one by one (its log has them all, up to its cap). */
const REFUSALS_KEPT = 20;
/** How long the artifact reader may take to send the artifacts. */
const ARTIFACTS_GRACE_MS = 10_000;

/** A step waits this long for one of the pool's size (every owner's) before it may go past it, up to the limit. */
const SLOT_WAIT_MS = 100;

/** What every process-based step shares: the base environment, the cgroups, the uids, the way out, the turns. */
interface ProcessStepContext {
  baseEnv: BaseEnv;
  /** The pool's size (steps at once before anyone waited long), its limit and each plan's share of it. */
  size: number;
  shares: PoolShares;
  cgroups: StepCgroups | undefined;
  /** The steps' uids; undefined: steps keep the runner's (only without the sandbox). */
  uids: UidBlock | undefined;
  egress: EgressProxy | undefined;
}

/**
 * The life of a process-based step: a uid of its own, a private run directory owned by it, a
 * clean environment, cgroups, an egress session when it may use the network, its main process
 * forked by the zygote (usually ahead, while the step before ran: step-spares.ts), its limits, its
 * processes supervised to their end, its stdio turned into a result, its artifacts received, and
 * everything it held given back. Closing kills what runs.
 */
export class ProcessSteps {
  private readonly running = new Set<StepProcess>();
  private readonly slots = new UidSlots();
  private readonly spares = new StepSpares();
  private readonly turns: FairSlots;
  private nextId = 1;

  constructor(private readonly ctx: ProcessStepContext) {
    this.turns = new FairSlots({
      size: ctx.size,
      maxWaitMs: SLOT_WAIT_MS,
      limit: ctx.shares.limit,
      reserve: ctx.shares.reserve,
    });
  }

  /**
   * The step's turn at the runner's process steps (before its zygote: an owner's zygote runs only
   * while the owner holds a turn): owners take turns, each up to its plan's share. Resolves with
   * the release, or undefined when `signal` aborted first.
   */
  async turn(
    req: CodeRequest,
    signal: AbortSignal,
    onTurn?: (state: TurnState) => void,
  ): Promise<(() => void) | undefined> {
    const owner = ownerOf(req);
    const share = this.ctx.shares.share(req.ownerPlan);
    // The client's clock of the run's timeout stops while it waits here.
    const queued = this.turns.wouldWait(owner, share);
    if (queued) onTurn?.("queued");
    if (!(await this.turns.acquire(owner, share, signal))) return undefined;
    if (queued) onTurn?.("started");
    return () => this.turns.release(owner);
  }

  async run(
    req: CodeRequest,
    limits: SandboxLimits,
    signal: AbortSignal,
    onLog: LogListener | undefined,
    zygote: Zygote,
    command: ZygoteCommand,
    interactive?: Interactive,
  ): Promise<RunResult> {
    const confined = zygote.confined;
    const shape: StepShape = { cgroup: limits, tmpBytes: limits.tmpMb * 1024 * 1024 };
    // Without the sandbox (an operator's opt-in) the step is on the host: its paths, its network.
    const withNetwork = Boolean(req.network) && confined;
    // Spares are made for the most common steps: no network (an egress session is a step's own), not interactive.
    const spareShaped = !withNetwork && !interactive;
    let step = spareShaped ? this.spares.take(zygote, shape) : undefined;
    let egress: EgressSession | undefined;
    const refusalLog = new LogLines(onLog);
    const refused: Refusals = { first: [], total: 0 };
    const onRefused = (r: SessionRefusal): void => {
      refusalLog.push(refusalLine(r));
      refused.total += 1;
      if (refused.first.length < REFUSALS_KEPT)
        refused.first.push("host" in r ? { host: r.host, port: r.port, reason: r.reason } : { reason: r.reason });
    };
    try {
      if (!step) {
        const slot = await this.slots.acquire(signal);
        if (slot === undefined) return aborted();
        const id = this.nextId++;
        const network = withNetwork
          ? await this.openEgress(req, zygote, id, onRefused).catch((err: unknown) => {
              this.slots.release(slot);
              throw err;
            })
          : undefined;
        egress = network?.session;
        step = this.prepare(zygote, id, slot, shape, {
          ...(network ? { network: { port: PROXY_PORT, socket: network.socket } } : {}),
          ...(interactive ? { interactive: true } : {}),
        });
      }
      const work = confined ? "/step" : step.dir;
      const proxy = egress && `http://127.0.0.1:${PROXY_PORT}`;
      // An interactive process (an MCP server) is no step: none of the WF_ variables.
      const env = interactive
        ? processEnv(this.ctx.baseEnv, work, proxy)
        : codeStepEnv(req, { home: work, artifacts: `${work}/artifacts` }, this.ctx.baseEnv, proxy);
      step.proc.start(command, { env, limits: processLimits(req, limits, this.ctx.cgroups?.dirs ?? new Map()) });
      if (interactive) connect(interactive, step.proc);
      const { result, aborted: cancelled } = await this.supervised(
        step.proc,
        step.cgroup,
        req,
        interactive ? { ...limits, outputBytes: INTERACTIVE_OUTPUT_BYTES } : limits,
        signal,
        onLog,
      );
      // An aborted step's artifacts are not wanted, an interactive process's are none of its caller's.
      const complete =
        cancelled || interactive ? result : withArtifacts(result, await this.artifactsOf(zygote, step, limits));
      return refused.total ? { ...complete, logs: [...complete.logs, ...refusalLog.kept()], refused } : complete;
    } finally {
      // After the result has left: removing and making cgroups blocks this thread (0.8 ms on a PVM guest, which
      // the result waited for while it was written in this turn's immediates, after these). And not before this
      // step has ended: a zygote busy forking reports a step's end that much later.
      afterThisTurnsWrites(() => {
        step?.release();
        void egress?.close().catch(() => undefined);
        if (spareShaped) this.spares.refill(zygote, shape, () => this.prepareSpare(zygote, shape));
      });
    }
  }

  /** The next step's process of `zygote`, made now with a free uid; none when every uid is taken. */
  private prepareSpare(zygote: Zygote, shape: StepShape): PreparedStep | undefined {
    const slot = this.slots.tryAcquire();
    if (slot === undefined) return undefined;
    try {
      return this.prepare(zygote, this.nextId++, slot, shape, {});
    } catch {
      // made again when a step needs it, failing that step with the reason
      return undefined;
    }
  }

  /**
   * Has `zygote` fork a step's main process and set it up: its uid (of `slot`), its run directory,
   * its cgroups and, with `network`, its own network namespace. It then waits for its step.
   */
  private prepare(
    zygote: Zygote,
    id: number,
    slot: number,
    shape: StepShape,
    extra: Pick<ProcessSetup, "network" | "interactive">,
  ): PreparedStep {
    const confined = zygote.confined;
    const self = process.getuid?.() ?? 0;
    const hostUid = this.ctx.uids ? this.ctx.uids.firstStep + slot : self;
    const uid = confined ? stepUid(slot) : hostUid;
    let dir: string | undefined;
    let cgroup: StepCgroup | undefined;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      // After the result, not before it: the processes are dead already, and removing a
      // directory tree costs a millisecond or more.
      void Promise.all([cgroup?.remove(), dir && removeRunDir(dir)])
        .catch(() => undefined)
        .finally(() => this.slots.release(slot));
    };
    try {
      // In the sandbox the zygote makes it; without, it is a directory of the host's.
      const name = `run-${id}-${randomBytes(6).toString("hex")}`;
      dir = confined ? join(zygote.runsDir, name) : hostRunDir(zygote.runsDir, hostUid, self);
      cgroup = this.ctx.cgroups?.open(shape.cgroup);
      const runDir = confined ? `/run/wf/runs/${name}` : dir;
      const proc = zygote.prepare({
        runDir,
        ...(confined ? { makeRun: { name, uid } } : {}),
        uid,
        cgroups: [...(cgroup?.paths ?? [])].map(([controller, path]) =>
          confined ? `/run/wf/cgroup/${controller}/${basename(path)}` : path,
        ),
        tmpBytes: shape.tmpBytes,
        ...extra,
      });
      return { proc, dir, runDir, uid, cgroup, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  killAll(): void {
    for (const proc of this.running) proc.kill();
  }

  /**
   * The step's egress session, on a socket in the zygote's control directory that only the
   * zygote's uid (the step's relay, which the zygote forks into its network namespace) may connect to.
   */
  private async openEgress(
    req: CodeRequest,
    zygote: Zygote,
    id: number,
    onRefused: (r: SessionRefusal) => void,
  ): Promise<{ session: EgressSession; socket: string }> {
    if (!this.ctx.egress) throw new Error("no egress proxy");
    const socket = `egress-${id}.sock`;
    // Each list narrows: a destination must be in the workflow's and in the owner's.
    const allow = [
      ...(typeof req.network === "object" ? [narrowing("the workflow's network.allow list", req.network.allow)] : []),
      ...(req.ownerAllow ? [narrowing("the owner's egress list", req.ownerAllow)] : []),
    ];
    const session = await this.ctx.egress.open({ socketPath: join(zygote.ctlDir, socket), allow, onRefused });
    if (this.ctx.uids) await chown(session.socketPath, this.ctx.uids.hostBase, this.ctx.uids.hostBase);
    return { session, socket };
  }

  /**
   * Runs the step's process to its end: the zygote kills it (and its PID namespace with it) and its cgroups at a stop.
   */
  private async supervised(
    proc: ZygoteProcess,
    cgroup: StepCgroup | undefined,
    req: CodeRequest,
    limits: SandboxLimits,
    signal: AbortSignal,
    onLog: LogListener | undefined,
  ): Promise<{ result: RunResult; aborted: boolean }> {
    const step: StepProcess = {
      stdout: proc.stdout,
      stderr: proc.stderr,
      exited: proc.exited,
      kill: () => {
        proc.kill();
        cgroup?.kill();
      },
      limitReached: () => cgroup?.limitReached(),
    };
    this.running.add(step);
    try {
      const logs = onLog && new LogLines(onLog);
      const outcome = await supervise(step, {
        timeoutMs: req.timeoutMs,
        signal,
        outputBytes: limits.outputBytes,
        onLine: logs && ((line) => logs.push(line)),
      });
      return { result: processResult(outcome, req.timeoutMs), aborted: outcome.end.kind === "aborted" };
    } finally {
      this.running.delete(step);
    }
  }

  /**
   * What the step left in its artifacts directory, once every process of it is gone. Its names
   * are listed here (nothing else of the step can change them now), and only when there is one
   * the zygote's reader reads them, as the step's uid: most steps leave none, and a reader costs
   * a fork. Looked at synchronously: a directory of a few entries takes microseconds, where two
   * hops through libuv's thread pool took milliseconds on a loaded machine.
   */
  private async artifactsOf(zygote: Zygote, step: PreparedStep, limits: SandboxLimits): Promise<Artifact[] | Error> {
    if (!hasEntries(join(step.dir, "artifacts"))) return [];
    const stream = zygote.readArtifacts({ runDir: step.runDir, uid: step.uid, limits });
    return within(readArtifactStream(stream, limits), ARTIFACTS_GRACE_MS);
  }
}

/** An interactive process's stdio wired to its caller's: stdin from `input`, stdout as text as it comes. */
function connect(interactive: Interactive, proc: ZygoteProcess): void {
  if (proc.stdin) interactive.input.pipe(proc.stdin);
  const decoder = new StringDecoder("utf8");
  proc.stdout.on("data", (chunk: Buffer) => {
    const text = decoder.write(chunk);
    if (text) interactive.onStdout(text);
  });
}

/** Whether `dir` is a directory (not a link to one) with anything in it. */
function hasEntries(dir: string): boolean {
  try {
    return lstatSync(dir).isDirectory() && readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/**
 * The rlimits of a step's processes. Where a cgroup counts the step's processes or memory in
 * all, the rlimit is only a backstop above it: it would otherwise refuse first and say nothing,
 * and writable address space is not memory used (Node 24 reserves about 1 GB of it to start).
 */
function processLimits(req: CodeRequest, limits: SandboxLimits, cgroups: ReadonlyMap<string, string>): ProcessLimits {
  return {
    // A backstop per process: the timeout stops the step first, unless it uses several cores.
    cpuSeconds: Math.ceil(req.timeoutMs / 1000) + 1,
    // RLIMIT_DATA rather than RLIMIT_AS: it counts memory a process can write, not address space
    // merely reserved, which runtimes such as V8 or Go reserve by the gigabyte.
    dataBytes: limits.memoryMb * 1024 * 1024 * (cgroups.has("memory") ? 8 : 1),
    openFiles: limits.openFiles,
    processes: cgroups.has("pids") ? limits.processes * 2 : limits.processes,
    // One byte over the per-file artifact limit, so that an artifact over it is found and named
    // when the artifacts are read, and no file the step writes can grow without bound.
    fileBytes: limits.artifactFileBytes + 1,
    artifactFiles: limits.artifactFiles,
    artifactFileBytes: limits.artifactFileBytes,
    artifactTotalBytes: limits.artifactTotalBytes,
  };
}

/** The artifacts the step wrote; a limit passed fails the step, naming the limit. */
function withArtifacts(result: RunResult, artifacts: Artifact[] | Error): RunResult {
  if (Array.isArray(artifacts)) return { ...result, artifacts };
  const message =
    artifacts instanceof ArtifactLimitError ? artifacts.message : `artifacts could not be read: ${artifacts.message}`;
  if (result.ok) return { ok: false, error: message, logs: result.logs, artifacts: [], timedOut: false };
  return { ...result, error: `${result.error}; ${message}` };
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T | Error> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Error>(
    (resolve) => (timer = setTimeout(() => resolve(new Error("the artifact reader did not send them in time")), ms)),
  );
  try {
    return await Promise.race([
      promise.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A refused connection as the step's log tells it. */
function refusalLine(refusal: SessionRefusal): string {
  if (!("host" in refusal)) return `[network] ${refusal.reason}`;
  return `[network] refused ${refusal.host}:${refusal.port}: ${refusal.reason}`;
}

function aborted(): RunResult {
  return { ok: false, error: "aborted", logs: [], artifacts: [], timedOut: false };
}
