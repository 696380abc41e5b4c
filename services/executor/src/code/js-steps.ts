import { stripTypeScriptTypes } from "node:module";
import { setFlagsFromString } from "node:v8";
import ivm from "isolated-vm";
import { ArtifactSet, describeBytes } from "./artifacts";
import { FairSlots } from "./fair-slots";
import { AloneCodes } from "./js-alone-codes";
import { CodeSources, sourceText } from "./js-code-sources";
import { JsonText, jsonOf } from "./json-text";
import { makeRealm, stepBounds, stepMaker, type Realm } from "./js-realm";
import { OwnerLru } from "@wf/shared/pools";
import { LogLines, timeoutMessage } from "./output";
import { JS_SHARES, MAX_IDLE_ISOLATES } from "./js-bounds";
import { ownerOf, type PoolShares } from "./pool-shares";
import { DEFAULT_LIMITS, type CodeRequest, type LogListener, type RunResult, type SandboxLimits } from "./types";

/**
 * An isolate is retired after this many runs, so that a slow leak or fragmentation cannot build up. Its realm costs
 * 10 to 45 ms of CPU to make (SES's source and lockdown), which at 5,000 runs was a sixth of the host's CPU per light
 * run on a 2-vCPU guest; at this bound it is about 1 µs a run. One isolate's heap stayed between 3 and 10 MB over
 * 200,000 light runs.
 */
const MAX_RUNS_PER_ISOLATE = 50_000;
/**
 * The step makers an isolate keeps compiled: each holds its code's source, in this process (the key) and in the
 * isolate, and its compiled function. Bounded in number and in characters of source, so that no owner's codes, many
 * or long, fill either; past either bound the owner holding the most gives up its least recently run (OwnerLru: one
 * owner's many codes push out its own, compiled again if used), and a code longer than a sixteenth of the characters
 * is compiled for each call.
 */
const MAX_MAKERS = 256;
const MAKER_CHARS = 1024 * 1024;
/**
 * An owner's next call waits at most this long for one of the MAX_IDLE_ISOLATES slots, then runs
 * anyway in an isolate of its own (while its owner is under its share and the runner under its
 * limit): calls queue for the pooled isolates rather than each making one, while steps stuck in
 * long loops hold the others back by no more than this.
 */
const SLOT_WAIT_MS = 100;
/**
 * WebAssembly memory is outside V8's heap and isolated-vm's accounting (2 GiB held by a step
 * counted 0 bytes). Steps cannot reach WebAssembly (js-realm.ts); should a way be found, no
 * single memory can pass a step's default heap. Process-wide: it is V8's flag, in 64 KiB pages.
 */
const WASM_MAX_PAGES = (DEFAULT_LIMITS.jsMemoryMb * 1024 * 1024) / (64 * 1024);

/**
 * Runs of one owner that share an isolate call at most: one hand-off to the isolate's thread and back for them all.
 * One run to a call cost the JavaScript host 0.22-0.27 ms of CPU per 3-step workflow, runs of one owner together
 * (15 to 16 to a call on average) 0.10-0.12 ms, and 3-step JavaScript workflows went from 2,014-2,412/s to
 * 2,684-2,873/s (BENCH_PARTS=suite, three interleaved pairs, 2 cores).
 */
const RUNS_PER_CALL = 16;
/**
 * A call of several runs that has not ended after this long is stopped (its isolate disposed) and its runs run again
 * alone, each with its own timeout: a run in an endless loop holds its owner's other runs back by no more than this.
 */
const SHARED_CALL_BUDGET_MS = 50;
/** The variables, inputs and items a call of several runs carries at most, in characters of JSON. */
const SHARED_CALL_CHARS = 1024 * 1024;

interface PooledIsolate {
  isolate: ivm.Isolate;
  memoryMb: number;
  runs: number;
  /** Made as the isolate is, while it waits for its first run. */
  realm: Promise<Realm>;
  /** Each code's step maker, compiled in this isolate, by its source (CodeSources); an entry's size is its length. */
  makers: OwnerLru<string, Promise<ivm.Reference<unknown>>>;
}

/** A run waiting for its owner's next call into an isolate. */
interface QueuedRun {
  req: CodeRequest;
  limits: SandboxLimits;
  signal: AbortSignal;
  onLog: LogListener | undefined;
  /** Its code as CodeSources gives it: what its maker is known by. */
  source: string;
  /** Its code's key in AloneCodes. */
  codeKey: string;
  /** Its variables, input and item as JSON, as the step's maker takes them. */
  json: [string, string, string | undefined];
  chars: number;
  /** It runs in a call of its own. */
  alone: boolean;
  settle(result: RunResult): void;
}

/** A run in a call: its step number in the realm, and what it wrote. */
interface CallStep {
  run: QueuedRun;
  step: number;
  logs: LogLines;
  artifacts: ArtifactSet;
  /** It was settled apart from the call: aborted, or its code did not compile. */
  done: boolean;
}

/** One owner's runs at one memory limit, waiting for a call, in the order they came. */
interface OwnerQueue {
  owner: string;
  memoryMb: number;
  /** Isolates its owner may hold at once. */
  share: number;
  runs: QueuedRun[];
  /** It waits for one of the isolates. */
  acquiring: boolean;
  /** Its calls running. */
  calls: number;
}

/**
 * JavaScript and TypeScript steps in pooled isolated-vm isolates, inside the sandbox's JavaScript host
 * (js-host-process.ts). Each isolate holds one realm made ahead (js-realm.ts) that any owner's step may take: no step
 * can change what another sees. Owners take turns at the isolates (FairSlots), each up to its plan's share; an owner's
 * turn is one call into an isolate, running up to RUNS_PER_CALL of its waiting runs together. A run stopped by its
 * timeout, an abort or the memory limit disposes its isolate; the other runs of its call run again alone. Why the
 * process, not the isolate, is the boundary (docs/sandbox.md#javascript-steps-a-fresh-realm-for-every-step).
 */
export class JsSteps {
  private readonly idle = new Map<number, PooledIsolate[]>();
  /** Isolates in circulation (idle or running), per memory limit. */
  private readonly isolates = new Map<number, number>();
  private readonly slots: FairSlots;
  private readonly queues = new Map<string, OwnerQueue>();
  private readonly aloneCodes = new AloneCodes();
  private readonly sources = new CodeSources();
  private nextStep = 1;

  constructor(readonly shares: PoolShares = JS_SHARES) {
    this.slots = new FairSlots({
      size: MAX_IDLE_ISOLATES,
      maxWaitMs: SLOT_WAIT_MS,
      limit: shares.limit,
      reserve: shares.reserve,
    });
    setFlagsFromString(`--wasm-max-mem-pages=${WASM_MAX_PAGES}`);
    // Loading the TypeScript stripper costs ~70 ms (and ~20 MB): pay it before the first step, not in it.
    stripTypeScriptTypes("let warm: number;", { mode: "strip" });
  }

  run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    if (signal.aborted) return Promise.resolve(aborted());
    const { source, key: code } = this.sources.of(req);
    const owner = ownerOf(req);
    const key = `${limits.jsMemoryMb}:${owner}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { owner, memoryMb: limits.jsMemoryMb, share: 0, runs: [], acquiring: false, calls: 0 };
      this.queues.set(key, queue);
    }
    queue.share = this.shares.share(req.ownerPlan);
    const json: QueuedRun["json"] = [
      JSON.stringify(req.vars),
      jsonOf(req.input),
      req.item === undefined ? undefined : JSON.stringify(req.item),
    ];
    const chars = json[0].length + json[1].length + (json[2]?.length ?? 0);
    // Live lines already sent would be sent again by a run again alone.
    const alone = onLog !== undefined || this.aloneCodes.alone(owner, code);
    const waiting = queue;
    return new Promise<RunResult>((resolve) => {
      const onAbort = (): void => {
        const i = waiting.runs.indexOf(run);
        if (i < 0) return;
        waiting.runs.splice(i, 1);
        resolve(aborted());
      };
      const run: QueuedRun = {
        req,
        limits,
        signal,
        onLog,
        source,
        codeKey: code,
        json,
        chars,
        alone,
        settle: (result) => {
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      signal.addEventListener("abort", onAbort, { once: true });
      waiting.runs.push(run);
      this.admit(key, waiting);
    });
  }

  /** Asks for an isolate for the queue's next call, unless it is asking already or has nothing waiting. */
  private admit(key: string, queue: OwnerQueue): void {
    if (queue.acquiring) return;
    if (queue.runs.length === 0) {
      // Kept while a call of it runs, whose runs may come back to it: the owner's runs keep one order.
      if (queue.calls === 0) this.queues.delete(key);
      return;
    }
    queue.acquiring = true;
    void this.slots.acquire(queue.owner, queue.share).then(() => {
      queue.acquiring = false;
      const runs = nextCall(queue);
      // Its runs were aborted while it waited.
      if (runs.length === 0) {
        this.slots.release(queue.owner);
        this.admit(key, queue);
        return;
      }
      queue.calls += 1;
      // While this call runs, the owner's next may take another of its share.
      this.admit(key, queue);
      // Once its isolate came back: one running a V8 builtin on past its disposal counts against its owner till then.
      void this.call(queue, runs).finally(() => {
        queue.calls -= 1;
        this.slots.release(queue.owner);
        this.admit(key, queue);
      });
    });
  }

  /** Runs `runs` in one call into an isolate; those of a shared call that failed go back to the queue, to run alone. */
  private async call(queue: OwnerQueue, runs: QueuedRun[]): Promise<void> {
    const shared = runs.length > 1;
    const pooled = this.take(queue.memoryMb);
    let stopped: "timeout" | "aborted" | undefined;
    const stop = (reason: "timeout" | "aborted"): void => {
      stopped ??= reason;
      if (!pooled.isolate.isDisposed) pooled.isolate.dispose();
    };
    const clock = (ms: number): NodeJS.Timeout => setTimeout(() => stop("timeout"), ms);
    // A shared call's budget counts from when its steps start: not its realm's making, nor its codes' compiling.
    let timer = shared ? undefined : clock(runs[0]!.req.timeoutMs);
    const steps: CallStep[] = runs.map((run) => ({
      run,
      step: this.nextStep++,
      logs: new LogLines(run.onLog),
      artifacts: new ArtifactSet(run.limits),
      done: false,
    }));
    const end = (s: CallStep, result: Failure): void => {
      s.done = true;
      s.run.settle(result);
    };
    // A run aborted in a shared call ends at once; the call goes on for the others, within its budget.
    const aborts = steps.map((s) => () => (shared ? end(s, aborted()) : stop("aborted")));
    steps.forEach((s, i) => s.run.signal.addEventListener("abort", aborts[i]!, { once: true }));
    let startedAt = 0;
    let realm: Realm | undefined;
    /** The steps the call runs, and what each settled as. */
    const ran: CallStep[] = [];
    let settled: string[] | undefined;
    let error: unknown;
    try {
      if (!shared && runs[0]!.signal.aborted) throw new Error("aborted");
      realm = await pooled.realm;
      const makers = await Promise.allSettled(runs.map((run) => this.maker(pooled, realm!, run.source, queue.owner)));
      const args: unknown[] = [];
      for (const [i, s] of steps.entries()) {
        const maker = makers[i]!;
        if (maker.status === "fulfilled") {
          realm.sinks.set(s.step, s);
          ran.push(s);
          args.push(maker.value.derefInto(), s.step, ...s.run.json, stepBounds(s.run.limits));
        } else if (shared) {
          // A code that does not compile fails alone, with its line.
          end(s, failure(maker.reason, undefined, undefined, s.run.req.timeoutMs));
        } else {
          throw maker.reason;
        }
      }
      if (shared) timer = clock(Math.min(SHARED_CALL_BUDGET_MS, ...runs.map((r) => r.req.timeoutMs)));
      // What a run alone is judged heavy by: its own time, not its realm's making nor its code's compiling.
      startedAt = performance.now();
      settled = (await realm.batch.apply(undefined, args, { result: { promise: true, copy: true } })) as string[];
    } catch (err) {
      error = err;
    } finally {
      clearTimeout(timer);
      steps.forEach((s, i) => s.run.signal.removeEventListener("abort", aborts[i]!));
      for (const { step } of steps) realm?.sinks.delete(step);
      this.giveBack(pooled, runs.length);
    }
    if (!settled && shared) {
      const again = steps.filter((s) => !s.done).map((s) => s.run);
      for (const run of again) {
        this.aloneCodes.failedShared(queue.owner, run.codeKey);
        run.alone = true;
      }
      queue.runs.unshift(...again);
      return;
    }
    if (!shared && startedAt > 0)
      this.aloneCodes.ranAlone(queue.owner, runs[0]!.codeKey, performance.now() - startedAt);
    if (!settled) {
      const s = steps[0]!;
      const disposedAtMb = pooled.isolate.isDisposed ? pooled.memoryMb : undefined;
      const result = failure(error, stopped, disposedAtMb, s.run.req.timeoutMs);
      return s.run.settle({ ...result, logs: s.logs.kept(), artifacts: s.artifacts.list() });
    }
    for (const [i, s] of ran.entries()) {
      if (s.done) continue;
      const result = settledResult(settled[i]!, s.run.limits.outputBytes);
      s.run.settle({ ...result, logs: s.logs.kept(), artifacts: s.artifacts.list() });
    }
  }

  /** The code's step maker in this isolate, compiled at its first run there, kept against `owner`'s share. */
  private maker(pooled: PooledIsolate, realm: Realm, source: string, owner: string): Promise<ivm.Reference<unknown>> {
    const kept = pooled.makers.get(source);
    if (kept) return kept;
    const made = compileMaker(realm, source);
    if (source.length > MAKER_CHARS / 16) return made;
    // A code that does not compile is compiled again at its next run, rather than kept.
    made.catch(() => pooled.makers.delete(source));
    pooled.makers.set(source, owner, made, source.length);
    return made;
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
    return { isolate, memoryMb, runs: 0, realm, makers: new OwnerLru(MAX_MAKERS, MAKER_CHARS) };
  }

  private giveBack(pooled: PooledIsolate, runs: number): void {
    pooled.runs += runs;
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

/**
 * Compiles a source's step maker; a TypeScript one with its types blanked out in place, so lines and columns stay the
 * step's own. Async: TypeScript that cannot be stripped rejects, as JavaScript that does not compile does.
 */
async function compileMaker(realm: Realm, source: string): Promise<ivm.Reference<unknown>> {
  const { text, typescript } = sourceText(source);
  const fn = typescript ? stripTypeScriptTypes(text, { mode: "strip" }) : text;
  return (await realm.context.eval(stepMaker(fn), {
    filename: "code.js",
    lineOffset: -1,
    reference: true,
  })) as ivm.Reference<unknown>;
}

type Failure = Extract<RunResult, { ok: false }>;

/** The next call of an owner's queue: its first run, and the runs after it that may share its call. */
function nextCall(queue: OwnerQueue): QueuedRun[] {
  const first = queue.runs.shift();
  if (!first) return [];
  const runs = [first];
  if (first.alone) return runs;
  let chars = first.chars;
  for (let next = queue.runs[0]; next && runs.length < RUNS_PER_CALL; next = queue.runs[0]) {
    if (next.alone || chars + next.chars > SHARED_CALL_CHARS) break;
    chars += next.chars;
    runs.push(queue.runs.shift()!);
  }
  return runs;
}

function aborted(): Failure {
  return failure(undefined, "aborted", undefined, 0);
}

/** A settled run's result; its output as the JSON text its isolate's JSON.stringify wrote, which the client parses. */
function settledResult(settled: string, maxOutputBytes: number): RunResult {
  const bare = { logs: [], artifacts: [] };
  if (settled.startsWith("E")) return { ok: false, error: settled.slice(1), timedOut: false, ...bare };
  const output = settled.slice(1);
  if (Buffer.byteLength(output) > maxOutputBytes) {
    return { ok: false, error: `output exceeds ${describeBytes(maxOutputBytes)}`, timedOut: false, ...bare };
  }
  return { ok: true, output: new JsonText(output), ...bare };
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
