import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import ivm from "isolated-vm";
import type { ArtifactSet } from "./artifacts";
import { artifactPath, describeBytes } from "./artifacts";
import type { SandboxLimits } from "./types";
import type { LogLines } from "./output";
import { MAX_LOG_LINE_CHARS, MAX_LOG_LINES } from "./output";

/** SES (hardened JavaScript): `lockdown()` freezes every intrinsic of the realm it runs in. */
const SES_SOURCE = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve("ses/package.json")), "dist", "ses.umd.min.js"),
  "utf8",
);

/**
 * Errors keep their stacks (the step's line is read off them); `Error.prepareStackTrace` and
 * `stackTraceLimit` stay the host's own only in the realm's start compartment, which no step
 * reaches: steps see the shared, tamed `Error` of a compartment.
 */
const LOCKDOWN = `lockdown({ errorTaming: "unsafe", stackFiltering: "verbose", consoleTaming: "unsafe" });`;

/**
 * Runs in every realm after lockdown, as source text (not a host function's toString(), which the
 * TypeScript loader may have rewritten). $0 sends a log line, $1 writes an artifact: user code
 * reaches them only through its own `console` and `artifacts`. It returns `begin(step, bounds)`, which returns
 * the step's scope, its `settle` (the step's promise as "R" + output JSON or "E" + error) and the
 * terminator. What leaves the isolate is bounded inside it (StepBounds): a log line is cut, an output or artifact
 * past the step's limits is refused there, so that no step makes the host copy more than its limits (a
 * megabyte line a thousand times once took the host, and every step in it, down). How names resolve in a step (docs/sandbox.md#javascript-steps-a-fresh-realm-for-every-step).
 */
const PRELUDE = `return (() => {
  const send = $0, writeArtifact = $1;
  const { create, defineProperties, freeze, getOwnPropertyNames } = Object;
  const { stringify } = JSON;
  const hidden = new Set(["WebAssembly", "lockdown", "repairIntrinsics", "console", "getStackString", "assert"]);
  delete globalThis.WebAssembly;
  const compartmentHas = new Compartment().globalThis;
  const globals = { Date, Math };
  for (const name of getOwnPropertyNames(globalThis)) {
    if (!hidden.has(name) && !(name in compartmentHas)) globals[name] = globalThis[name];
  }
  const shared = new Compartment({ __options__: true, globals }).globalThis;
  for (const name of hidden) delete shared[name];
  Object.defineProperty(shared, "WebAssembly", {
    get() { throw new ReferenceError("WebAssembly is not available in JavaScript steps: its memory would be outside the step's memory limit"); },
  });
  harden(shared);
  freeze(globalThis);
  const terminator = new Proxy(freeze(create(null)), {
    // $0 is the wrapper's own (stepSource): the step's scope, settle, terminator and function.
    has: (_, name) => typeof name === "string" && name !== "$0",
    get: () => undefined,
    set: (_, name) => { throw new ReferenceError(String(name) + " is not defined"); },
  });
  const text = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value.stack ?? value);
    try { return stringify(value) ?? String(value); } catch { return String(value); }
  };
  const describe = (error) => {
    try {
      if (!(error instanceof Error)) return "Uncaught " + text(error);
      const line = [...String(error.stack).matchAll(/code\\.js:(-?\\d+)/g)].find((m) => Number(m[1]) >= 1);
      return line ? String(error) + " (line " + line[1] + ")" : String(error);
    } catch {
      return "Uncaught exception";
    }
  };
  const output = (value, bounds) => {
    let json;
    try { json = stringify(value === undefined ? null : value) ?? "null"; }
    catch (error) { return "Eoutput is not JSON-serialisable: " + describe(error); }
    // Longer in characters is longer in bytes: refused here; the host checks the bytes of what passes.
    return json.length > bounds.outputBytes ? "E" + bounds.outputTooLarge : "R" + json;
  };
  return (step, boundsJson) => {
    const bounds = JSON.parse(boundsJson);
    // Frozen: it is the step's $0[1], and must hold nothing another step could change.
    const settle = freeze((promise) => promise.then((value) => output(value, bounds), (error) => "E" + describe(error)));
    // Counted here too, so that a logging loop stops crossing into the host once nothing more is kept.
    let lines = 0;
    const log = (...args) => {
      if (++lines > ${MAX_LOG_LINES + 1}) return;
      const line = args.map(text).join(" ");
      send(step, line.length > ${MAX_LOG_LINE_CHARS} ? line.slice(0, ${MAX_LOG_LINE_CHARS}) : line, line.length);
    };
    const console = freeze({ log, info: log, warn: log, error: log, debug: log, trace: log });
    // At least the bytes written so far (a string's characters; its bytes may be more, which the host counts).
    let written = 0;
    const artifacts = freeze({
      write(path, content) {
        if (typeof content !== "string" && !(content instanceof Uint8Array)) {
          throw new TypeError("artifacts.write(path, content): content must be a string or a Uint8Array");
        }
        const size = typeof content === "string" ? content.length : content.byteLength;
        if (size > bounds.artifactFileBytes) throw new RangeError("artifact " + String(path) + bounds.fileTooLarge);
        if (written + size > bounds.artifactTotalBytes) throw new RangeError(bounds.filesTooLarge);
        writeArtifact(step, String(path), content);
        written += size;
      },
    });
    const scope = create(shared);
    const own = (value) => ({ value, writable: true, configurable: true });
    defineProperties(scope, { globalThis: own(scope), console: own(console), artifacts: own(artifacts) });
    return [scope, settle, terminator];
  };
})();`;

/** The limits a step's isolate enforces on what leaves it, with the host's words for each (a JSON text as `begin`'s). */
export function stepBounds(limits: BoundedLimits): string {
  const key = `${limits.outputBytes}:${limits.artifactFileBytes}:${limits.artifactTotalBytes}`;
  let bounds = BOUNDS.get(key);
  if (bounds === undefined) BOUNDS.set(key, (bounds = boundsText(limits)));
  return bounds;
}

type BoundedLimits = Pick<SandboxLimits, "outputBytes" | "artifactFileBytes" | "artifactTotalBytes">;

/** Made once per set of limits (a runner serves few): every step passes its own. */
const BOUNDS = new Map<string, string>();

function boundsText(limits: BoundedLimits): string {
  return JSON.stringify({
    outputBytes: limits.outputBytes,
    outputTooLarge: `output exceeds ${describeBytes(limits.outputBytes)}`,
    artifactFileBytes: limits.artifactFileBytes,
    fileTooLarge: ` exceeds ${describeBytes(limits.artifactFileBytes)} (the limit per file)`,
    artifactTotalBytes: limits.artifactTotalBytes,
    filesTooLarge: `artifacts exceed ${describeBytes(limits.artifactTotalBytes)} in all (the limit per step)`,
  });
}

/** What a step's host callbacks deliver to. */
export interface StepSink {
  logs: LogLines;
  artifacts: ArtifactSet;
}

/**
 * A locked-down context serving any step, several of one owner's in a call: none can leave anything in it for
 * another.
 */
export interface Realm {
  context: ivm.Context;
  batch: ivm.Reference<unknown>;
  /** The steps running in it, by number: a line or file of any other step is dropped. */
  sinks: Map<number, StepSink>;
}

/**
 * Makes an isolate's realm: ~10 ms of CPU (SES's source and lockdown), paid once per isolate,
 * where a fresh context per step would cost ~0.5 ms each.
 */
export async function makeRealm(isolate: ivm.Isolate): Promise<Realm> {
  const context = await isolate.createContext();
  const sinks = new Map<number, StepSink>();
  // A line or file from an earlier step (a callback it left behind) is dropped, never given to the next.
  const send = new ivm.Callback(
    (step: number, line: string, length: number) => sinks.get(step)?.logs.push(line, length),
    {
      ignored: true,
    },
  );
  const write = new ivm.Callback((step: number, path: string, content: string | Uint8Array) => {
    sinks.get(step)?.artifacts.add(artifactPath(path), Buffer.from(content));
  });
  await context.eval(SES_SOURCE);
  await context.eval(LOCKDOWN);
  const begin = (await context.evalClosure(PRELUDE, [send, write], {
    filename: "prelude.js",
    result: { reference: true },
  })) as ivm.Reference<unknown>;
  const batch = (await context.evalClosure(BATCH, [begin.derefInto()], {
    filename: "batch.js",
    result: { reference: true },
  })) as ivm.Reference<unknown>;
  return { context, batch, sinks };
}

/**
 * Runs several steps in one call into the isolate: its arguments are, per step, its maker (stepMaker) and the
 * maker's arguments; it settles with each step's settled string, in order.
 */
const BATCH = `const begin = $0;
return (...flat) => {
  const settled = [];
  for (let i = 0; i < flat.length; i += 6) {
    try {
      settled.push(flat[i](begin, flat[i + 1], flat[i + 2], flat[i + 3], flat[i + 4], flat[i + 5]));
    } catch (error) {
      settled.push("E" + String(error));
    }
  }
  return Promise.all(settled);
};`;

/** The step's maker: stepSource as a function of its six arguments, evaluated to a reference. */
export function stepMaker(fn: string): string {
  return `(function ($0, $1, $2, $3, $4, $5) { ${stepSource(fn)} })`;
}

/**
 * The step's source: its code is the body of an async, strict function made inside
 * `with (terminator) with (scope)`, so that every name it does not declare resolves through its
 * own global object or the terminator, never past them (to the wrapper's $1…$5 or the realm's
 * global); the one name the terminator lets through, $0, holds the step's own scope and function, and
 * the realm's settle and terminator, both frozen.
 * The function opens on the first line, so the step's lines are its own, one down.
 */
function stepSource(fn: string): string {
  return `return (($0) => { with ($0[2]) { with ($0[0]) { $0[3] = ${fn}; } } return $0[1]($0[3](JSON.parse($2), JSON.parse($3), $4 === undefined ? undefined : JSON.parse($4))); })($0($1, $5));`;
}

/** The step's function, before TypeScript's types are stripped from it. */
export function stepFunction(code: string): string {
  return `(async function (vars, input, item) { "use strict";\n${code}\n})`;
}
