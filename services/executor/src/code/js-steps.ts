import { stripTypeScriptTypes } from "node:module";
import ivm from "isolated-vm";
import { ArtifactSet, artifactPath, describeBytes } from "./artifacts";
import { LogLines, MAX_LOG_LINES, timeoutMessage } from "./output";
import type { CodeRequest, LogListener, RunResult, SandboxLimits } from "./types";

/** Idle isolates kept for reuse, per memory limit; more concurrent runs than this create isolates that are then disposed. */
const MAX_IDLE_ISOLATES = 8;
/** An isolate is retired after this many runs, so that a slow leak or fragmentation cannot build up. */
const MAX_RUNS_PER_ISOLATE = 500;

/**
 * Runs first in every context (sent as source text, not a host function's toString(), which the
 * TypeScript loader may have rewritten). $0 sends a log line, $1 writes an artifact; user code
 * reaches them only through `console` and `artifacts`. It returns `settle`, which turns the
 * step's promise into "R" + output JSON or "E" + error message. Errors carry the line in the
 * step's code when the stack names one.
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
  return (promise) => promise.then(
    (value) => {
      try { return "R" + (JSON.stringify(value === undefined ? null : value) ?? "null"); }
      catch (error) { return "Eoutput is not JSON-serialisable: " + describe(error); }
    },
    (error) => "E" + describe(error),
  );
})();`;
/** The step's first line follows the line opening its function. */
const LINE_OFFSET = -1;

/** Where the host callbacks of one context deliver: the run using it, once it has one. */
interface Sink {
  logs?: LogLines;
  artifacts?: ArtifactSet;
}

/** A fresh context with the prelude run in it, used by one run only. */
interface Prepared {
  context: ivm.Context;
  settle: ivm.Reference<unknown>;
  sink: Sink;
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
 * Isolates are pooled, each run getting a fresh context in an isolate no other run is using:
 * against a fresh isolate per run that saves ~1.5 ms, and the context is made ahead, while the
 * isolate waits for its next run. Nothing crosses between runs: a context has its own globals
 * and builtins, and an isolate is idle once a run has its result (no timers or I/O exist inside;
 * a never-ending microtask chain keeps the result from settling, so it ends in the timeout). A run stopped by its timeout, an abort or the memory limit disposes its
 * isolate. What pooling does share is the heap: a V8 exploit could read an earlier run's
 * garbage, but such an exploit already owns this process, which sees every run, so the separate
 * process, not the isolate, is the security boundary.
 */
export class JsSteps {
  private readonly idle = new Map<number, PooledIsolate[]>();

  constructor() {
    // Loading the TypeScript stripper costs ~70 ms (and ~20 MB): pay it before the first step, not in it.
    stripTypeScriptTypes("let warm: number;", { mode: "strip" });
  }

  async run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener): Promise<RunResult> {
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
    let prepared: Prepared | undefined;
    let result: RunResult;
    try {
      if (signal.aborted) throw new Error("aborted");
      prepared = (await pooled.spare) ?? (await prepare(pooled.isolate));
      pooled.spare = undefined;
      prepared.sink.logs = logs;
      prepared.sink.artifacts = artifacts;
      const settled: string = await prepared.context.evalClosure(
        stepSource(req),
        [
          prepared.settle.derefInto(),
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
        prepared.settle.release();
        prepared.context.release();
      }
      this.giveBack(pooled);
    }
    return { ...result, logs: logs.kept(), artifacts: artifacts.list() };
  }

  close(): void {
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
    if (!pooled) return newIsolate(memoryMb);
    if (pool?.length === 0) {
      setImmediate(() => {
        if (pool.length > 0) return;
        const extra = newIsolate(memoryMb);
        extra.spare = prepare(extra.isolate).catch(() => undefined);
        pool.push(extra);
      });
    }
    return pooled;
  }

  private giveBack(pooled: PooledIsolate): void {
    pooled.runs += 1;
    if (pooled.isolate.isDisposed) return;
    const pool = this.idle.get(pooled.memoryMb) ?? [];
    this.idle.set(pooled.memoryMb, pool);
    if (pooled.runs >= MAX_RUNS_PER_ISOLATE || pool.length >= MAX_IDLE_ISOLATES) pooled.isolate.dispose();
    else {
      pooled.spare = prepare(pooled.isolate).catch(() => undefined);
      pool.push(pooled);
    }
  }
}

function newIsolate(memoryMb: number): PooledIsolate {
  return { isolate: new ivm.Isolate({ memoryLimit: memoryMb }), memoryMb, runs: 0 };
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
  const settle = await context.evalClosure(PRELUDE, [send, write], { filename: "prelude.js", result: { reference: true } });
  return { context, settle: settle as ivm.Reference<unknown>, sink };
}

/** The step function's parameters $0…$3 shadow the closure's, so user code cannot reach `settle`. */
function stepSource(req: CodeRequest): string {
  let fn = `(async function (vars, input, item, $0, $1, $2, $3) {\n${req.code ?? ""}\n})`;
  // Strip mode blanks the types out in place, so line and column numbers stay the step's own.
  if (req.language === "typescript") fn = stripTypeScriptTypes(fn, { mode: "strip" });
  return `return $0(${fn}(JSON.parse($1), JSON.parse($2), $3 === undefined ? undefined : JSON.parse($3)));`;
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
