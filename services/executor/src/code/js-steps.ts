import { stripTypeScriptTypes } from "node:module";
import { setFlagsFromString } from "node:v8";
import ivm from "isolated-vm";
import { ArtifactSet, describeBytes } from "./artifacts";
import { FairSlots } from "./fair-slots";
import { makeRealm, stepFunction, stepSource, type Realm } from "./js-realm";
import { LogLines, timeoutMessage } from "./output";
import { JS_SHARES, MAX_IDLE_ISOLATES } from "./js-bounds";
import { ownerOf, type PoolShares } from "./pool-shares";
import { DEFAULT_LIMITS, type CodeRequest, type LogListener, type RunResult, type SandboxLimits } from "./types";

/**
 * An isolate is retired after this many runs, so that a slow leak or fragmentation cannot build
 * up; its realm's ~10 ms of lockdown come to ~2 µs a run.
 */
const MAX_RUNS_PER_ISOLATE = 5_000;
/**
 * A run waits at most this long for one of the MAX_IDLE_ISOLATES slots, then runs anyway in an
 * isolate of its own (while its owner is under its share and the runner under its limit): runs
 * queue for the pooled isolates rather than each making one, while steps stuck in long loops
 * hold the others back by no more than this.
 */
const SLOT_WAIT_MS = 100;
/**
 * WebAssembly memory is outside V8's heap and isolated-vm's accounting (2 GiB held by a step
 * counted 0 bytes). Steps cannot reach WebAssembly (js-realm.ts); should a way be found, no
 * single memory can pass a step's default heap. Process-wide: it is V8's flag, in 64 KiB pages.
 */
const WASM_MAX_PAGES = (DEFAULT_LIMITS.jsMemoryMb * 1024 * 1024) / (64 * 1024);

interface PooledIsolate {
  isolate: ivm.Isolate;
  memoryMb: number;
  runs: number;
  /** Made as the isolate is, while it waits for its first run. */
  realm: Promise<Realm>;
}

/**
 * JavaScript and TypeScript steps in pooled isolated-vm isolates, inside the sandbox's JavaScript host
 * (js-host-process.ts). Each isolate holds one realm made ahead (js-realm.ts) that any owner's step may take: no step
 * can change what another sees. A run stopped by its timeout, an abort or the memory limit disposes its isolate. Owners
 * take turns at the isolates (FairSlots), each up to its plan's share. Why the process, not the isolate, is the
 * boundary (docs/sandbox.md#javascript-steps-a-fresh-realm-for-every-step).
 */
export class JsSteps {
  private readonly idle = new Map<number, PooledIsolate[]>();
  /** Isolates in circulation (idle or running), per memory limit. */
  private readonly isolates = new Map<number, number>();
  private readonly slots: FairSlots;
  private nextStep = 1;

  constructor(readonly shares: PoolShares = JS_SHARES) {
    this.slots = new FairSlots({ size: MAX_IDLE_ISOLATES, maxWaitMs: SLOT_WAIT_MS, limit: shares.limit });
    setFlagsFromString(`--wasm-max-mem-pages=${WASM_MAX_PAGES}`);
    // Loading the TypeScript stripper costs ~70 ms (and ~20 MB): pay it before the first step, not in it.
    stripTypeScriptTypes("let warm: number;", { mode: "strip" });
  }

  async run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    const owner = ownerOf(req);
    if (!(await this.slots.acquire(owner, this.shares.share(req.ownerPlan), signal)))
      return failure(new Error("aborted"), "aborted", limits.jsMemoryMb, req.timeoutMs);
    try {
      return await this.runInSlot(req, limits, signal, onLog);
    } finally {
      this.slots.release(owner);
    }
  }

  private async runInSlot(
    req: CodeRequest,
    limits: SandboxLimits,
    signal: AbortSignal,
    onLog?: LogListener,
  ): Promise<RunResult> {
    const logs = new LogLines(onLog);
    const artifacts = new ArtifactSet(limits);
    const pooled = this.take(limits.jsMemoryMb);
    let stopped: "timeout" | "aborted" | undefined;
    const stop = (reason: "timeout" | "aborted"): void => {
      stopped ??= reason;
      if (!pooled.isolate.isDisposed) pooled.isolate.dispose();
    };
    const timer = setTimeout(() => stop("timeout"), req.timeoutMs);
    const onAbort = (): void => stop("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    const step = this.nextStep++;
    let realm: Realm | undefined;
    let result: RunResult;
    try {
      if (signal.aborted) throw new Error("aborted");
      realm = await pooled.realm;
      Object.assign(realm.sink, { step, logs, artifacts });
      const settled: string = await realm.context.evalClosure(
        stepSource(functionOf(req)),
        [
          realm.begin.derefInto(),
          step,
          JSON.stringify(req.vars),
          JSON.stringify(req.input ?? null),
          req.item === undefined ? undefined : JSON.stringify(req.item),
        ],
        { filename: "code.js", lineOffset: -1, result: { promise: true } },
      );
      result = settledResult(settled, limits.outputBytes);
    } catch (err) {
      result = failure(err, stopped, pooled.isolate.isDisposed ? pooled.memoryMb : undefined, req.timeoutMs);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      // Late callbacks of this step find another step's number, or none.
      if (realm) realm.sink.step = 0;
      this.giveBack(pooled);
    }
    return { ...result, logs: logs.kept(), artifacts: artifacts.list() };
  }

  close(): void {
    for (const pool of this.idle.values()) for (const { isolate } of pool.splice(0)) isolate.dispose();
  }

  /**
   * The isolate idle longest, whose realm is the likeliest to be ready. When it was the last one,
   * another is made once this run is under way, so that back-to-back runs find a realm made.
   */
  private take(memoryMb: number): PooledIsolate {
    const pool = this.idle.get(memoryMb);
    const pooled = pool?.shift();
    if (!pooled) return this.newIsolate(memoryMb);
    if (pool) this.refill(pool, memoryMb);
    return pooled;
  }

  /** Makes a spare isolate when the last idle one was taken, while there are fewer than the pool keeps. */
  private refill(pool: PooledIsolate[], memoryMb: number): void {
    if (pool.length > 0) return;
    setImmediate(() => {
      if (pool.length > 0 || (this.isolates.get(memoryMb) ?? 0) >= MAX_IDLE_ISOLATES) return;
      pool.push(this.newIsolate(memoryMb));
    });
  }

  private newIsolate(memoryMb: number): PooledIsolate {
    this.isolates.set(memoryMb, (this.isolates.get(memoryMb) ?? 0) + 1);
    const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
    const realm = makeRealm(isolate);
    // A realm that failed is found by the run that awaits it.
    realm.catch(() => undefined);
    return { isolate, memoryMb, runs: 0, realm };
  }

  private giveBack(pooled: PooledIsolate): void {
    pooled.runs += 1;
    const pool = this.idle.get(pooled.memoryMb) ?? [];
    this.idle.set(pooled.memoryMb, pool);
    if (pooled.isolate.isDisposed || pooled.runs >= MAX_RUNS_PER_ISOLATE || pool.length >= MAX_IDLE_ISOLATES) {
      if (!pooled.isolate.isDisposed) pooled.isolate.dispose();
      this.isolates.set(pooled.memoryMb, this.isolates.get(pooled.memoryMb)! - 1);
    } else {
      pool.push(pooled);
    }
  }
}

/** The step's function as source; TypeScript's types blanked out in place, so lines and columns stay the step's own. */
function functionOf(req: CodeRequest): string {
  const fn = stepFunction(req.code ?? "");
  return req.language === "typescript" ? stripTypeScriptTypes(fn, { mode: "strip" }) : fn;
}

type Failure = Extract<RunResult, { ok: false }>;

function settledResult(settled: string, maxOutputBytes: number): RunResult {
  const bare = { logs: [], artifacts: [] };
  if (settled.startsWith("E")) return { ok: false, error: settled.slice(1), timedOut: false, ...bare };
  const output = settled.slice(1);
  if (Buffer.byteLength(output) > maxOutputBytes) {
    return { ok: false, error: `output exceeds ${describeBytes(maxOutputBytes)}`, timedOut: false, ...bare };
  }
  return { ok: true, output: JSON.parse(output) as unknown, ...bare };
}

/** `disposedAtMb`: the memory limit of the run's isolate, when something disposed it. */
function failure(
  err: unknown,
  stopped: "timeout" | "aborted" | undefined,
  disposedAtMb: number | undefined,
  timeoutMs: number,
): Failure {
  const fail = (error: string, timedOut = false): Failure => ({ ok: false, error, timedOut, logs: [], artifacts: [] });
  if (stopped === "timeout") return fail(timeoutMessage(timeoutMs), true);
  if (stopped === "aborted") return fail("aborted");
  if (disposedAtMb !== undefined) return fail(`memory limit of ${disposedAtMb} MB exceeded`);
  // Compile errors come as "Unexpected token ';' [code.js:2:9]".
  const message = err instanceof Error ? err.message : String(err);
  const at = /\s*\[code\.js:(-?\d+):\d+\]$/.exec(message);
  const name = err instanceof Error ? err.name : "Error";
  return fail(at ? `${name}: ${message.slice(0, at.index)} (line ${at[1]})` : `${name}: ${message}`);
}
