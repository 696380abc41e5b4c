import { stripTypeScriptTypes } from "node:module";
import { availableParallelism } from "node:os";
import ivm from "isolated-vm";
import { ArtifactSet, artifactPath, describeBytes } from "./artifacts";
import { LogLines, MAX_LOG_LINES, timeoutMessage } from "./output";
import { Slots } from "./slots";
import type { CodeRequest, LogListener, RunResult, SandboxLimits } from "./types";

/**
 * Isolates per memory limit, and runs at once (see SLOT_WAIT_MS; runs past it make isolates that
 * are then disposed): one per core, 2 to 8. Each isolate runs on a thread of its own and every
 * run is a hand-off to that thread and back, so isolates beyond the cores only add hand-offs: on
 * 2 cores, 8 isolates cost a third more of a runner's CPU per light step than 2 did end to end
 * (BENCH_PARTS=e2e), and 2x in a loop of 32 runs at once.
 */
const MAX_IDLE_ISOLATES = Math.min(8, Math.max(2, availableParallelism()));
/** An isolate is retired after this many runs, so that a slow leak or fragmentation cannot build up. */
const MAX_RUNS_PER_ISOLATE = 500;
/**
 * A run waits at most this long for one of the MAX_IDLE_ISOLATES slots, then runs anyway in an
 * isolate of its own: under a burst, runs queue for the pooled isolates instead of each making
 * one (~0.7 ms of CPU each, and the contexts kept in them lost), while steps stuck in long
 * loops never hold the others back by more than this.
 */
const SLOT_WAIT_MS = 100;
/**
 * Contexts kept for later steps of their workflow, at most, in one runner process. Each holds its
 * own builtins (~150 KB of its isolate's heap): with hundreds kept, the isolates' garbage
 * collection cost more than the contexts saved (measured with 64 executions at once).
 */
const MAX_KEPT_CONTEXTS = 16;
/** A kept context unused for this long is released. */
const KEPT_IDLE_MS = 2_000;
/**
 * A context is kept only while its isolate's heap stays under this: a step that leaves much
 * behind in its globals would otherwise narrow the memory of every run after it in that isolate.
 */
const KEPT_HEAP_BYTES = 16 * 1024 * 1024;

/**
 * Runs first in every context (sent as source text, not a host function's toString(), which the
 * TypeScript loader may have rewritten). $0 sends a log line, $1 writes an artifact; user code
 * reaches them only through `console` and `artifacts`. It returns `begin`, called as a step
 * starts, which returns `settle`: that turns the step's promise into "R" + output JSON or "E" +
 * error message. Errors carry the line in the step's code when the stack names one.
 */
const PRELUDE = `return (() => {
  const send = $0, writeArtifact = $1;
  const text = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value.stack ?? value);
    try { return JSON.stringify(value) ?? String(value); } catch { return String(value); }
  };
  // Counted here too, so that a logging loop stops crossing into the host once nothing more is kept.
  let lines = 0;
  const log = (...args) => { if (++lines <= ${MAX_LOG_LINES + 1}) send(args.map(text).join(" ")); };
  globalThis.console = Object.freeze({ log, info: log, warn: log, error: log, debug: log, trace: log });
  globalThis.artifacts = Object.freeze({
    write(path, content) {
      if (typeof content !== "string" && !(content instanceof Uint8Array)) {
        throw new TypeError("artifacts.write(path, content): content must be a string or a Uint8Array");
      }
      writeArtifact(String(path), content);
    },
  });
  const describe = (error) => {
    try {
      if (!(error instanceof Error)) return "Uncaught " + text(error);
      const line = [...String(error.stack).matchAll(/code\\.js:(-?\\d+)/g)].find((m) => Number(m[1]) >= 1);
      return line ? String(error) + " (line " + line[1] + ")" : String(error);
    } catch {
      return "Uncaught exception";
    }
  };
  const settle = (promise) => promise.then(
    (value) => {
      try { return "R" + (JSON.stringify(value === undefined ? null : value) ?? "null"); }
      catch (error) { return "Eoutput is not JSON-serialisable: " + describe(error); }
    },
    (error) => "E" + describe(error),
  );
  // Each step of a context logs up to the limit: the count starts again with it.
  return () => { lines = 0; return settle; };
})();`;
/** The step's first line follows the line opening its function. */
const LINE_OFFSET = -1;

/** Where the host callbacks of one context deliver: the run using it, once it has one. */
interface Sink {
  logs?: LogLines;
  artifacts?: ArtifactSet;
}

/** A context with the prelude run in it, used by one run at a time: one step, or steps of one workflow one after another. */
interface Prepared {
  context: ivm.Context;
  begin: ivm.Reference<unknown>;
  sink: Sink;
}

/** A context kept for a next step of its key, in an isolate that other runs use meanwhile. */
interface Kept {
  key: string;
  pooled: PooledIsolate;
  prepared: Prepared;
  at: number;
}

interface PooledIsolate {
  isolate: ivm.Isolate;
  memoryMb: number;
  runs: number;
  /**
   * The context for the next run, prepared while the isolate was idle: making one is most of
   * a light step's cost (~0.5 ms).
   */
  spare?: Promise<Prepared | undefined>;
}

/**
 * JavaScript and TypeScript steps in isolated-vm isolates, inside the sandbox runner process.
 *
 * Isolates are pooled, each run getting a context in an isolate no other run is using: against
 * a fresh isolate per run that saves ~1.5 ms, and a fresh context is made ahead, while the
 * isolate waits for its next run. Making a context costs ~0.3-0.6 ms of CPU, most of a light
 * step's cost, so the steps of one workflow reuse contexts, like a warm serverless function:
 * after a step its context is kept (at most MAX_KEPT_CONTEXTS, each for KEPT_IDLE_MS, and only
 * while its isolate's heap is small), and a later step of the same owner's same workflow, of
 * any of its executions, takes one whose isolate is idle. A step then costs ~0.09 ms of CPU
 * instead of ~0.54 (0.67 with 64 at once). So a step may find globals an earlier step of its
 * workflow left; never another workflow's or another owner's: each context serves one owner's
 * one workflow, and contexts have their own globals and builtins. An
 * isolate is idle once a run has its result (no timers or I/O exist inside; a never-ending
 * microtask chain keeps the result from settling, so it ends in the timeout). A run stopped by
 * its timeout, an abort or the memory limit disposes its isolate, and the contexts kept in it.
 * What pooling does share is the heap: a V8 exploit could read an earlier run's garbage, but
 * such an exploit already owns this process, which sees every run, so the separate process,
 * not the isolate, is the security boundary.
 */
export class JsSteps {
  private readonly idle = new Map<number, PooledIsolate[]>();
  /** Isolates in circulation (idle or running), per memory limit. */
  private readonly isolates = new Map<number, number>();
  /** Least recently used first. */
  private kept: Kept[] = [];
  private readonly sweeper = setInterval(() => this.releaseIdle(), KEPT_IDLE_MS);
  private readonly slots = new Slots(MAX_IDLE_ISOLATES, SLOT_WAIT_MS);

  constructor() {
    // Loading the TypeScript stripper costs ~70 ms (and ~20 MB): pay it before the first step, not in it.
    stripTypeScriptTypes("let warm: number;", { mode: "strip" });
    this.sweeper.unref();
  }

  async run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    await this.slots.acquire();
    try {
      return await this.runInSlot(req, limits, signal, onLog);
    } finally {
      this.slots.release();
    }
  }

  private async runInSlot(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    const logs = new LogLines(onLog);
    const artifacts = new ArtifactSet(limits);
    const key = contextKey(req);
    const reused = key === undefined ? undefined : this.takeKept(key, limits.jsMemoryMb);
    const pooled = reused?.pooled ?? this.take(limits.jsMemoryMb);
    let stopped: "timeout" | "aborted" | undefined;
    const stop = (reason: "timeout" | "aborted"): void => {
      stopped ??= reason;
      if (!pooled.isolate.isDisposed) pooled.isolate.dispose();
    };
    const timer = setTimeout(() => stop("timeout"), req.timeoutMs);
    const onAbort = (): void => stop("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    let prepared = reused?.prepared;
    let result: RunResult;
    try {
      if (signal.aborted) throw new Error("aborted");
      if (!prepared) {
        prepared = (await pooled.spare) ?? (await prepare(pooled.isolate));
        pooled.spare = undefined;
      }
      prepared.sink.logs = logs;
      prepared.sink.artifacts = artifacts;
      const settled: string = await prepared.context.evalClosure(
        stepSource(req),
        [
          prepared.begin.derefInto(),
          JSON.stringify(req.vars),
          JSON.stringify(req.input ?? null),
          req.item === undefined ? undefined : JSON.stringify(req.item),
        ],
        { filename: "code.js", lineOffset: LINE_OFFSET, result: { promise: true } },
      );
      result = settledResult(settled, limits.outputBytes);
    } catch (err) {
      result = failure(err, stopped, pooled, req.timeoutMs);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (prepared && !pooled.isolate.isDisposed) {
        if (key !== undefined) this.keep(key, pooled, prepared);
        else release(prepared, pooled);
      }
      this.giveBack(pooled);
    }
    return { ...result, logs: logs.kept(), artifacts: artifacts.list() };
  }

  close(): void {
    clearInterval(this.sweeper);
    this.kept = [];
    for (const pool of this.idle.values()) for (const { isolate } of pool.splice(0)) isolate.dispose();
  }

  /**
   * The isolate idle longest, whose spare context is the likeliest to be ready. When it was the
   * last one, another is made once this run is under way, so that back-to-back runs alternate
   * between two isolates and find their contexts made.
   */
  private take(memoryMb: number): PooledIsolate {
    const pool = this.idle.get(memoryMb);
    const pooled = pool?.shift();
    if (!pooled) return this.newIsolate(memoryMb);
    if (pool) this.refill(pool, memoryMb);
    return pooled;
  }

  /** A context kept for `key` whose isolate is idle now, and that isolate; the newest such first. */
  private takeKept(key: string, memoryMb: number): Kept | undefined {
    const pool = this.idle.get(memoryMb);
    if (!pool) return undefined;
    for (let i = this.kept.length - 1; i >= 0; i--) {
      const kept = this.kept[i]!;
      if (kept.key !== key || kept.pooled.memoryMb !== memoryMb) continue;
      const at = pool.indexOf(kept.pooled);
      if (at < 0) continue;
      this.kept.splice(i, 1);
      pool.splice(at, 1);
      this.refill(pool, memoryMb);
      return kept;
    }
    return undefined;
  }

  /** Makes a spare isolate when the last idle one was taken, while there are fewer than the pool holds. */
  private refill(pool: PooledIsolate[], memoryMb: number): void {
    if (pool.length > 0) return;
    setImmediate(() => {
      if (pool.length > 0 || (this.isolates.get(memoryMb) ?? 0) >= MAX_IDLE_ISOLATES) return;
      const extra = this.newIsolate(memoryMb);
      extra.spare = prepare(extra.isolate).catch(() => undefined);
      pool.push(extra);
    });
  }

  /** Keeps the context for a next step of its key, the least recently used one making room. */
  private keep(key: string, pooled: PooledIsolate, prepared: Prepared): void {
    // Read while this run still holds the isolate, idle now that the run settled: a quick lock,
    // where the asynchronous form is a hand-off to the isolate's thread and back (4x the CPU).
    if (pooled.isolate.getHeapStatisticsSync().used_heap_size >= KEPT_HEAP_BYTES) return release(prepared, pooled);
    this.kept.push({ key, pooled, prepared, at: Date.now() });
    while (this.kept.length > MAX_KEPT_CONTEXTS) {
      const evicted = this.kept.shift()!;
      release(evicted.prepared, evicted.pooled);
    }
  }

  private releaseIdle(): void {
    const before = Date.now() - KEPT_IDLE_MS;
    while (this.kept.length > 0 && this.kept[0]!.at <= before) {
      const entry = this.kept.shift()!;
      release(entry.prepared, entry.pooled);
    }
  }

  private newIsolate(memoryMb: number): PooledIsolate {
    this.isolates.set(memoryMb, (this.isolates.get(memoryMb) ?? 0) + 1);
    return { isolate: new ivm.Isolate({ memoryLimit: memoryMb }), memoryMb, runs: 0 };
  }

  private giveBack(pooled: PooledIsolate): void {
    pooled.runs += 1;
    const pool = this.idle.get(pooled.memoryMb) ?? [];
    this.idle.set(pooled.memoryMb, pool);
    if (pooled.isolate.isDisposed || pooled.runs >= MAX_RUNS_PER_ISOLATE || pool.length >= MAX_IDLE_ISOLATES) {
      if (!pooled.isolate.isDisposed) pooled.isolate.dispose();
      this.isolates.set(pooled.memoryMb, this.isolates.get(pooled.memoryMb)! - 1);
    } else {
      pooled.spare ??= prepare(pooled.isolate).catch(() => undefined);
      pool.push(pooled);
    }
  }
}

/** Which runs may share a context: one owner's runs of one workflow. */
function contextKey(req: CodeRequest): string | undefined {
  return req.owner === undefined || req.workflow === undefined ? undefined : JSON.stringify([req.owner, req.workflow]);
}

/** Frees a context's handles; a disposed isolate took them along. */
function release(prepared: Prepared, pooled: PooledIsolate): void {
  if (pooled.isolate.isDisposed) return;
  prepared.begin.release();
  prepared.context.release();
}

/** A context with `console`, `artifacts` and the prelude's `settle`, delivering to its own sink. */
async function prepare(isolate: ivm.Isolate): Promise<Prepared> {
  const context = await isolate.createContext();
  const sink: Sink = {};
  // Per context, not per isolate: a log line delivered late (the callback is asynchronous) still
  // reaches the run that wrote it, never the next one.
  const send = new ivm.Callback((line: string) => sink.logs?.push(line), { ignored: true });
  const write = new ivm.Callback((path: string, content: string | Uint8Array) => {
    sink.artifacts?.add(artifactPath(path), Buffer.from(content));
  });
  const begin = await context.evalClosure(PRELUDE, [send, write], { filename: "prelude.js", result: { reference: true } });
  return { context, begin: begin as ivm.Reference<unknown>, sink };
}

/** The step function's parameters $0…$3 shadow the closure's, so user code cannot reach `begin`. */
function stepSource(req: CodeRequest): string {
  let fn = `(async function (vars, input, item, $0, $1, $2, $3) {\n${req.code ?? ""}\n})`;
  // Strip mode blanks the types out in place, so line and column numbers stay the step's own.
  if (req.language === "typescript") fn = stripTypeScriptTypes(fn, { mode: "strip" });
  // `$0()` runs before the step's function: its log count starts at zero for this step.
  return `return $0()(${fn}(JSON.parse($1), JSON.parse($2), $3 === undefined ? undefined : JSON.parse($3)));`;
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

function failure(err: unknown, stopped: "timeout" | "aborted" | undefined, pooled: PooledIsolate, timeoutMs: number): Failure {
  const fail = (error: string, timedOut = false): Failure => ({ ok: false, error, timedOut, logs: [], artifacts: [] });
  if (stopped === "timeout") return fail(timeoutMessage(timeoutMs), true);
  if (stopped === "aborted") return fail("aborted");
  if (pooled.isolate.isDisposed) return fail(`memory limit of ${pooled.memoryMb} MB exceeded`);
  // Compile errors come as "Unexpected token ';' [code.js:2:9]".
  const message = err instanceof Error ? err.message : String(err);
  const at = /\s*\[code\.js:(-?\d+):\d+\]$/.exec(message);
  const name = err instanceof Error ? err.name : "Error";
  return fail(at ? `${name}: ${message.slice(0, at.index)} (line ${at[1]})` : `${name}: ${message}`);
}
