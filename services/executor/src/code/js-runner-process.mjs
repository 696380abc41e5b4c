/**
 * The JavaScript runner: one long-lived Node process, forked by js-runner-client.ts with an empty
 * environment, that runs JavaScript and TypeScript steps in isolated-vm isolates, so that user code
 * never runs in the service process and an escape from an isolate finds no credentials.
 *
 * Plain .mjs rather than TypeScript: it starts without a loader (tsx adds ~80 ms to each start,
 * and its transpiler to the process hosting user code) and it is small enough to review untyped.
 *
 * Isolates are pooled, each run getting a fresh context in an isolate no other run is using.
 * Against a fresh isolate per run that saves ~1.5 ms (isolate ~2 ms, context ~0.5 ms). Nothing
 * crosses between runs: a context has its own globals and builtins, and an isolate is idle once a
 * run has its result (no timers or I/O exist inside; a never-ending microtask chain keeps the
 * result from settling, so it ends in the timeout). A run stopped by its timeout, an abort or the
 * memory limit disposes its isolate. What pooling does share is the heap: a V8 exploit could read
 * an earlier run's garbage, but such an exploit already owns this process, which sees every run,
 * so the separate process, not the isolate, is the security boundary.
 *
 * IPC (advanced serialization). In: {type: "run", id, language, code, vars, input, item,
 * timeoutMs} with vars/input/item as JSON text, {type: "cancel", id}. Out: {type: "ready"} once,
 * then {type: "result", id, ok, output (JSON text) | error, logs, timedOut} per run.
 */
import { stripTypeScriptTypes } from "node:module";
import process from "node:process";
import { clearTimeout, setTimeout } from "node:timers";
import ivm from "isolated-vm";

const [memoryLimitMb, maxLogLines, maxLogLineChars, maxOutputBytes] = process.argv.slice(2).map(Number);
/** Idle isolates kept for reuse; more concurrent runs than this create isolates that are then disposed. */
const MAX_IDLE_ISOLATES = 8;
/** An isolate is retired after this many runs, so that a slow leak or fragmentation cannot build up. */
const MAX_RUNS_PER_ISOLATE = 500;

/**
 * Runs inside the isolate (it is sent there as source text): installs `console`, whose lines go
 * to `send` (up to maxLines, each cut at maxLineChars), and returns `settle`, which turns the
 * step's promise into "R" + output JSON or "E" + error message. Errors carry the line in the
 * step's code when the stack names one.
 */
function prelude(send, maxLines, maxLineChars) {
  let lines = 0;
  const text = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value.stack ?? value);
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return String(value);
    }
  };
  const capLine = (line) =>
    line.length > maxLineChars ? `${line.slice(0, maxLineChars)}[${line.length - maxLineChars} more characters]` : line;
  const log = (...args) => {
    lines += 1;
    if (lines < maxLines) send(capLine(args.map(text).join(" ")));
    else if (lines === maxLines) send("[further lines not kept]");
  };
  globalThis.console = { log, info: log, warn: log, error: log, debug: log, trace: log };
  const describe = (error) => {
    try {
      if (!(error instanceof Error)) return `Uncaught ${text(error)}`;
      // The first frame in the step's own code (the prelude's lines are numbered below 1).
      const line = [...String(error.stack).matchAll(/code\.js:(-?\d+)/g)].find((m) => Number(m[1]) >= 1);
      return line ? `${String(error)} (line ${line[1]})` : String(error);
    } catch {
      return "Uncaught exception";
    }
  };
  return (promise) =>
    promise.then(
      (value) => {
        try {
          return `R${JSON.stringify(value === undefined ? null : value) ?? "null"}`;
        } catch (error) {
          return `Eoutput is not JSON-serialisable: ${describe(error)}`;
        }
      },
      (error) => `E${describe(error)}`,
    );
}

const PRELUDE = `const $settle = (${prelude.toString()})($0, ${maxLogLines}, ${maxLogLineChars});`;
/** The step's first line follows the prelude and the line opening its function. */
const LINE_OFFSET = -(PRELUDE.split("\n").length + 1);

const idle = [];
const running = new Map();

function takeIsolate() {
  return idle.pop() ?? { isolate: new ivm.Isolate({ memoryLimit: memoryLimitMb }), runs: 0 };
}

function returnIsolate(pooled) {
  pooled.runs += 1;
  if (pooled.isolate.isDisposed) return;
  if (pooled.runs >= MAX_RUNS_PER_ISOLATE || idle.length >= MAX_IDLE_ISOLATES) pooled.isolate.dispose();
  else idle.push(pooled);
}

function stepSource(language, code) {
  let fn = `(async function (vars, input, item) {\n${code}\n})`;
  // Strip mode blanks the types out in place, so line and column numbers stay the step's own.
  if (language === "typescript") fn = stripTypeScriptTypes(fn, { mode: "strip" });
  return `${PRELUDE}\nreturn $settle(${fn}(JSON.parse($1), JSON.parse($2), $3 === undefined ? undefined : JSON.parse($3)));`;
}

async function run(msg) {
  const logs = [];
  const pooled = takeIsolate();
  const job = { pooled, stopped: undefined };
  running.set(msg.id, job);
  const timer = setTimeout(() => stop(job, "timeout"), msg.timeoutMs);
  let context;
  let reply;
  try {
    const source = stepSource(msg.language, msg.code);
    context = await pooled.isolate.createContext();
    const send = new ivm.Callback((line) => logs.push(line), { ignored: true });
    const settled = await context.evalClosure(source, [send, msg.vars, msg.input, msg.item], {
      filename: "code.js",
      lineOffset: LINE_OFFSET,
      result: { promise: true },
    });
    reply = settledReply(settled);
  } catch (err) {
    reply = failureReply(err, job);
  } finally {
    clearTimeout(timer);
    running.delete(msg.id);
    if (context && !pooled.isolate.isDisposed) context.release();
    returnIsolate(pooled);
  }
  process.send({ type: "result", id: msg.id, logs, ...reply });
}

function settledReply(settled) {
  if (settled.startsWith("E")) return { ok: false, error: settled.slice(1), timedOut: false };
  const output = settled.slice(1);
  if (output.length > maxOutputBytes) {
    return { ok: false, error: `output exceeds ${maxOutputBytes / (1024 * 1024)} MB`, timedOut: false };
  }
  return { ok: true, output };
}

function failureReply(err, job) {
  if (job.stopped === "timeout") return { ok: false, error: "timed out", timedOut: true };
  if (job.stopped === "aborted") return { ok: false, error: "aborted", timedOut: false };
  if (job.pooled.isolate.isDisposed) {
    return { ok: false, error: `memory limit of ${memoryLimitMb} MB exceeded`, timedOut: false };
  }
  // Compile errors come as "Unexpected token ';' [code.js:2:9]".
  const message = err instanceof Error ? err.message : String(err);
  const at = /\s*\[code\.js:(-?\d+):\d+\]$/.exec(message);
  const name = err instanceof Error ? err.name : "Error";
  const text = at ? `${name}: ${message.slice(0, at.index)} (line ${at[1]})` : `${name}: ${message}`;
  return { ok: false, error: text, timedOut: false };
}

function stop(job, reason) {
  if (job.stopped) return;
  job.stopped = reason;
  if (!job.pooled.isolate.isDisposed) job.pooled.isolate.dispose();
}

process.on("message", (msg) => {
  if (msg.type === "run") void run(msg);
  else if (msg.type === "cancel") {
    const job = running.get(msg.id);
    if (job) stop(job, "aborted");
  }
});
// The service is gone: so is the reason to exist.
process.on("disconnect", () => process.exit(0));
// Loading the TypeScript stripper costs ~70 ms (and ~20 MB): pay it before the first step, not in it.
stripTypeScriptTypes("let warm: number;", { mode: "strip" });
process.send({ type: "ready" });
