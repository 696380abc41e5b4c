import type { Duplex } from "node:stream";
import { SentCodes } from "./code-refs";
import { JS_POOL } from "./js-bounds";
import { JsRunClock, STUCK_GRACE_MS, type JsPool } from "./js-run-clock";
import { timeoutMessage } from "./output";
import { ownerOf } from "./pool-shares";
import { RunAdmission } from "./run-admission";
import { DEFAULT_SANDBOX_SETTINGS } from "./sandbox-settings";
import { JsonText, jsonOf, valueOf } from "./json-text";
import type { ClientMessage, RunnerMessage, TurnState, WireResult } from "./protocol";
import { fitsOnALine, fromWire, messageLine, readMessages, writeFollowed, writeMessage } from "./protocol";
import {
  runsInIsolate,
  type CodeRequest,
  type InteractiveProcess,
  type Isolation,
  type LogListener,
  type RunResult,
  type SandboxLimits,
} from "./types";

/**
 * JavaScript runs sent to one runner at once; the rest queue here. The runner's JavaScript host has 2 to 8 isolates
 * and queues the runs by owner, an owner's turn running up to 16 of them in one call (js-steps.ts), so that its
 * isolates have the next runs at hand while the executor reads their results. With 8 at once, the executor wrote 5
 * runs to the host per write (3,500 writes for 6,000 3-step workflows), with 64 it wrote 20, and the sustained 3-step
 * JavaScript figure rose by two fifths (2,440/s to 3,400/s on 2 cores). The clock that finds a host stuck allows for
 * what a run waits there (js-run-clock.ts). A large run takes slots as its size asks (run-admission.ts): 16 MB of
 * requests wait at the host, 32 MB with runs that waited, where 128 requests of 1 MB would otherwise sit there parsed.
 */
export const MAX_CONCURRENT_JS_RUNS = 64;
/**
 * Process runs (every language but JavaScript and TypeScript) sent to one runner at once, per process step it runs at
 * once (WF_SANDBOX_STEPS, as its "ready" says): as many again wait there for their owners' turns, so that a step that
 * ends finds the next at hand; the rest wait here. Before, every process run went to the runner at once, which kept
 * them all in memory behind its turns: a foreach of 3,000 Python steps with 256 KB inputs sent one runner 0.75 GB.
 * With the default 32 steps, 64 slots of 256 KB: 16 MB of requests at a runner, 32 MB with runs that waited.
 */
const PROCESS_RUNS_PER_STEP = 2;
/**
 * A queued run goes to the runner anyway after this long, while its owner is under its share: the runs ahead of it are
 * stuck (light JavaScript steps take well under a millisecond, so a queue of hundreds drains in tens), and steps in
 * endless loops must not hold every other one back until their timeouts.
 */
const MAX_QUEUE_MS = 250;

/** A run from run() until its runner answered it, or it was given up. */
interface Run {
  id: number;
  req: CodeRequest;
  /** A JavaScript or TypeScript run. */
  isolate: boolean;
  signal: AbortSignal | undefined;
  /** Dropped once a JavaScript run went past its timeout and grace: its isolate's later lines go nowhere. */
  onLog: LogListener | undefined;
  /** Resolves its caller's promise: with its result, or before, as it went past its grace (the first one counts). */
  answer: (result: RunResult) => void;
  /** Its slots (run-admission.ts), once it took them. */
  release: (() => void) | undefined;
  /** A process run's clock: its timeout and grace, stopped while it waits for its owner's turn at the runner. */
  timer: NodeJS.Timeout | undefined;
  /** The listener on its signal. */
  onAbort: () => void;
  /** It went past its own clock. */
  overdue: () => void;
}

/**
 * A run's message, made before it waits for its turn (its size is what the turn weighs), and what makes it again with
 * its input in it, for a runner that does not take inputs on a line of their own.
 */
interface RunRequest {
  /** The message, its input on the line after it. */
  line: string;
  /** The input's JSON text. */
  input: string;
  limits: SandboxLimits;
  live: boolean;
  codeId: number | null;
}

/** An interactive process (open()), until it ended. */
interface Opened {
  onStdout: (data: string) => void;
  settle: (reply: RunResult | Error) => void;
}

/** The release of a relay's JavaScript run: it holds no slots here (its client took turns at them). */
const NOTHING_HELD = (): void => undefined;

/**
 * A JavaScript host is killed once more of its isolates than this fraction of its limit hold runs gone past their
 * timeouts and grace, of more than one owner: one owner's stuck runs hold only its share there, and the others run on.
 */
const STUCK_HOST_FRACTION = 1 / 2;

/**
 * The client end of one connection to a sandbox runner (see protocol.ts), local or remote. Its
 * owner reports the connection's end through fail(), with the best reason it knows.
 */
export class RunnerConnection {
  readonly ready: Promise<Isolation>;
  private readonly runs = new Map<number, Run>();
  private readonly opened = new Map<number, Opened>();
  /** Set once the runner said it is ready: runs go at once from then, where their turns let them. */
  private isReady = false;
  private readonly jsRuns = new RunAdmission(MAX_CONCURRENT_JS_RUNS, MAX_QUEUE_MS);
  /** Made once the runner says how many process steps it runs at once. */
  private processRuns: RunAdmission | undefined;
  /** Made once the runner says how many JavaScript runs its host takes at once. */
  private jsClock: JsRunClock | undefined;
  private jsPool: JsPool = JS_POOL;
  /**
   * Isolate runs answered as timed out past their timeout and grace that their host has not answered, by id, with
   * their owners: each still holds its isolate there, and its owner's slot here.
   */
  private readonly stuck = new Map<number, string>();
  private nextId = 1;
  private pending = 0;
  /** Set once the runner says it holds codes sent once: until then, and with one that does not, runs carry theirs. */
  private codes: SentCodes | undefined;
  /** Whether the runner takes a run's input on a line of its own (protocol.ts). */
  private rawInput = false;
  private failure: Error | undefined;
  private onReady: (isolation: Isolation) => void = () => undefined;
  private onFailed: (err: Error) => void = () => undefined;

  constructor(
    private readonly stream: Duplex,
    /**
     * Called when a process step went unanswered long past its timeout, or too many JavaScript isolates did, or a
     * JavaScript host answered none of its runs for too long: the runner (or its host) is stuck.
     */
    private readonly onStuck: (why: string) => void,
    /**
     * A runner relaying its clients' JavaScript runs to its JavaScript host: owners took turns at them before, and
     * outputs that come as JSON text go on as text (json-text.ts). Elsewhere owners take turns here, and outputs are
     * parsed.
     */
    private readonly relay = false,
  ) {
    this.ready = new Promise<Isolation>((resolve, reject) => {
      this.onReady = resolve;
      this.onFailed = reject;
    });
    // A failure before "ready" is reported by the runs awaiting it.
    this.ready.catch(() => undefined);
    stream.on("error", () => undefined);
    readMessages<RunnerMessage>(stream, (msg, follows) => {
      if (msg.t === "ready") {
        this.jsPool = msg.js ?? JS_POOL;
        this.jsClock ??= new JsRunClock(this.jsPool, (why) => this.stalled(why));
        const steps = msg.processSteps ?? DEFAULT_SANDBOX_SETTINGS.processSteps.atOnce;
        this.processRuns ??= new RunAdmission(PROCESS_RUNS_PER_STEP * steps, MAX_QUEUE_MS);
        if (msg.codeRefs === true) this.codes ??= new SentCodes();
        this.rawInput = msg.rawInput === true;
        this.isReady = true;
        this.onReady(msg.isolation);
      } else if (msg.t === "log") this.runs.get(msg.id)?.onLog?.(msg.line);
      else if (msg.t === "out") this.opened.get(msg.id)?.onStdout(msg.data);
      else if (msg.t === "queued" || msg.t === "started") {
        const run = this.runs.get(msg.id);
        // Only a sandbox runner's process steps wait for turns they are told of: a JavaScript run's clock hears
        // nothing.
        if (run && !run.isolate) this.turn(run, msg.t);
      } else this.answered(msg, follows);
    });
  }

  /** Runs started and not finished, queued ones included: for choosing the least busy runner. */
  get busy(): number {
    return this.pending;
  }

  get alive(): boolean {
    return this.failure === undefined;
  }

  /**
   * Runs `req`. A JavaScript or TypeScript run still going past its timeout and grace fails then as timed out, while
   * its slot and its clock stay taken until its host answers it: its isolate is held there till then.
   */
  run(req: CodeRequest, limits: SandboxLimits, signal?: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    return new Promise((answer) => this.start(req, limits, signal, onLog, answer));
  }

  /**
   * Starts run() of `req`: sent now where its turn lets it and the runner is ready, else once they do. The run's
   * message is made here, and its state kept in one object: with 64 runs at once, what a run holds till it ends
   * outlives young-generation collections.
   */
  private start(
    req: CodeRequest,
    limits: SandboxLimits,
    signal: AbortSignal | undefined,
    onLog: LogListener | undefined,
    answer: (result: RunResult) => void,
  ): void {
    const run: Run = {
      id: this.nextId++,
      req,
      isolate: runsInIsolate(req.language),
      signal,
      onLog,
      answer,
      release: undefined,
      timer: undefined,
      onAbort: () => this.aborted(run),
      overdue: () => this.overdue(run),
    };
    const codeId = this.codes?.idOf(req.code) ?? null;
    const live = onLog !== undefined;
    const input = jsonOf(req.input);
    const line = messageLine(runMessage(run.id, req, limits, live, codeId, undefined, "input"));
    const request: RunRequest = { line, input, limits, live, codeId };
    // Counted once its message is made: an input that is no JSON (a BigInt, a cycle) fails the call with nothing held.
    this.pending += 1;
    const release =
      this.isReady && !signal?.aborted ? this.admitNow(req, run.isolate, line.length + input.length) : undefined;
    if (release === undefined) {
      void this.sendInTurn(run, request);
      return;
    }
    run.release = release;
    this.send(run, request);
  }

  /** Sends `run` once its turn came and the runner is ready; it ends as aborted where its signal aborts first. */
  private async sendInTurn(run: Run, request: RunRequest): Promise<void> {
    try {
      run.release = await this.admit(run.req, run.isolate, request.line.length + request.input.length, run.signal);
      if (!run.release) return this.end(run, failed("aborted"));
      if (!this.isReady) await this.ready;
      this.send(run, request);
    } catch (err) {
      this.end(run, failed(err instanceof Error ? err.message : String(err)));
    }
  }

  /**
   * The run's release if its turn lets it go now (the runner is ready), else undefined: it waits for its turn (admit).
   */
  private admitNow(req: CodeRequest, isolate: boolean, chars: number): (() => void) | undefined {
    if (isolate) return this.relay ? NOTHING_HELD : this.jsRuns.admitNow(ownerOf(req), req.ownerPlan, chars);
    return this.processRuns!.admitNow(ownerOf(req), req.ownerPlan, chars);
  }

  /**
   * The run's turn to be sent (run-admission.ts), its request `chars` characters long: its release, or undefined when
   * `signal` aborted first. A relay sends JavaScript runs at once: its client took turns at them already.
   */
  private async admit(
    req: CodeRequest,
    isolate: boolean,
    chars: number,
    signal: AbortSignal | undefined,
  ): Promise<(() => void) | undefined> {
    if (isolate) return this.relay ? NOTHING_HELD : this.jsRuns.admit(ownerOf(req), req.ownerPlan, chars, signal);
    // Its runner says, when ready, how many process steps it runs at once.
    await this.ready;
    return this.processRuns!.admit(ownerOf(req), req.ownerPlan, chars, signal);
  }

  /**
   * Starts an interactive process (see CodeRunner.open) once the runner is ready; what is written
   * before is sent then. Its stderr's lines are dropped here (its result keeps their tail).
   */
  open(
    req: CodeRequest,
    limits: SandboxLimits,
    onStdout: (chunk: string) => void,
  ): Omit<InteractiveProcess, "result"> & { result: Promise<RunResult> } {
    const id = this.nextId++;
    this.pending += 1;
    let ended = false;
    const result = new Promise<RunResult>((resolve) => {
      const settle = (reply: RunResult | Error): void => {
        this.opened.delete(id);
        this.pending -= 1;
        ended = true;
        resolve(reply instanceof Error ? failed(reply.message) : reply);
      };
      this.opened.set(id, { onStdout, settle });
      if (this.failure) return settle(this.failure);
      this.ready.then(
        () => writeMessage(this.stream, { t: "open", id, req, limits }),
        (err: Error) => settle(err),
      );
    });
    const send = (msg: Parameters<typeof writeMessage>[1]): void => {
      if (ended) return;
      // After "open": messages go out in the order they were made, and "open" waits for ready.
      void this.ready.then(
        () => writeMessage(this.stream, msg),
        () => undefined,
      );
    };
    return {
      write: (data) => send({ t: "stdin", id, data }),
      end: () => send({ t: "eof", id }),
      kill: () => send({ t: "cancel", id }),
      result,
    };
  }

  /** Fails the runs in flight with `err`, and every later one. */
  fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.onFailed(err);
    for (const run of this.runs.values()) this.end(run, failed(err.message));
    for (const proc of this.opened.values()) proc.settle(err);
    this.stream.destroy();
  }

  /** Sends `run`, which took its turn, with its message `request`. */
  private send(run: Run, request: RunRequest): void {
    if (this.failure) return this.end(run, failed(this.failure.message));
    const { id, req, signal } = run;
    // Aborted before it was sent: nothing holds it anywhere.
    if (signal?.aborted) return this.end(run, failed("aborted"));
    this.runs.set(id, run);
    if (run.isolate) this.jsClock!.start(id, ownerOf(req), req.ownerPlan, req.timeoutMs, run.overdue);
    else run.timer = setTimeout(run.overdue, req.timeoutMs + STUCK_GRACE_MS);
    signal?.addEventListener("abort", run.onAbort, { once: true });
    // Its code first, where the runner does not hold it (any more): messages of a turn leave in the order written.
    const { codeId } = request;
    if (codeId !== null)
      for (const msg of this.codes!.before(codeId, req.code!, ownerOf(req))) writeMessage(this.stream, msg);
    if (this.rawInput && fitsOnALine(request.input)) writeFollowed(this.stream, request.line, request.input);
    // To a runner that does not say it takes inputs on their own line (or an input text holding one), as before.
    else writeMessage(this.stream, runMessage(id, req, request.limits, request.live, codeId, valueOf(req.input)));
  }

  /**
   * Ends `run` with `result` (`answered`: its runner's); a JavaScript run answered before, as it went past its grace,
   * keeps that answer.
   */
  private end(run: Run, result: RunResult, answered = false): void {
    this.runs.delete(run.id);
    this.stuck.delete(run.id);
    if (run.isolate) this.jsClock?.end(run.id, answered);
    else clearTimeout(run.timer);
    run.signal?.removeEventListener("abort", run.onAbort);
    run.release?.();
    this.pending -= 1;
    run.answer(result);
  }

  /**
   * A process run ends at once: the runner kills its processes as it receives the cancel. A JavaScript run keeps its
   * slot and its clock until its host answers it, as past its grace: its isolate, stuck in a builtin past the cancel,
   * is still taken. Its caller hears now, but for a relay's, which hears the host's answer.
   */
  private aborted(run: Run): void {
    writeMessage(this.stream, { t: "cancel", id: run.id });
    if (!run.isolate) this.end(run, failed("aborted"));
    else if (!this.relay) run.answer(failed("aborted"));
  }

  private overdue(run: Run): void {
    const { id, req } = run;
    writeMessage(this.stream, { t: "cancel", id });
    if (!run.isolate) {
      this.end(run, failed(timeoutMessage(req.timeoutMs), true));
      this.onStuck(`a run was still going ${STUCK_GRACE_MS / 1000} s after its timeout`);
      return;
    }
    // A V8 builtin (a sort of millions, say) runs on past its isolate's disposal: only its isolate is stuck.
    run.signal?.removeEventListener("abort", run.onAbort);
    run.onLog = undefined;
    // The client's own clock answers its caller: a relay's answer is the host's, the run's slot held till then.
    if (!this.relay) run.answer(failed(timeoutMessage(req.timeoutMs), true));
    this.stuck.set(id, ownerOf(req));
    this.checkStuck();
  }

  /** Time a process run waits at the runner for its owner's turn does not count against its timeout. */
  private turn(run: Run, state: TurnState): void {
    clearTimeout(run.timer);
    if (state === "started") run.timer = setTimeout(run.overdue, run.req.timeoutMs + STUCK_GRACE_MS);
  }

  /** A JavaScript run given up with the other runs of a host found stuck. */
  private giveUp(run: Run, why: string): void {
    // One past its grace was cancelled then.
    const cancelled = this.stuck.has(run.id);
    this.end(run, failed(`the JavaScript host is stuck: ${why}`));
    if (!cancelled) writeMessage(this.stream, { t: "cancel", id: run.id });
  }

  /** The runner's result of a run or a process, the text of its output with it where that came on its own line. */
  private answered(msg: Extract<RunnerMessage, { t: "result" }>, follows: string | undefined): void {
    const run = this.runs.get(msg.id);
    const proc = run ? undefined : this.opened.get(msg.id);
    if (!run && !proc) return;
    const result = msg.follows === "output" ? this.withOutput(msg.result, follows) : fromWire(msg.result);
    if (run) this.end(run, result, true);
    else proc!.settle(result);
  }

  /**
   * A result whose output came on a line of its own: as that text, passed on by a relay, or as its value with the text
   * beside it. An output that is not JSON fails its run: only a runner in the sandbox wrote it.
   */
  private withOutput(wire: WireResult, json: string | undefined): RunResult {
    const result = fromWire(wire);
    if (!result.ok || json === undefined) return result;
    if (this.relay) return { ...result, output: new JsonText(json) };
    try {
      return { ...result, output: JSON.parse(json) as unknown, outputJson: json };
    } catch {
      return failed("the sandbox runner answered an output that is not JSON");
    }
  }

  /** Has the runner kill its JavaScript host once more of its isolates than STUCK_HOST_FRACTION are stuck. */
  private checkStuck(): void {
    const owners = new Set(this.stuck.values()).size;
    if (owners < 2 || this.stuck.size <= this.jsPool.limit * STUCK_HOST_FRACTION) return;
    this.onStuck(
      `${this.stuck.size} of its ${this.jsPool.limit} isolates, of ${owners} owners, were still going ${STUCK_GRACE_MS / 1000} s after their runs' timeouts`,
    );
  }

  /** No JavaScript run ended for too long: each is given up, and the runner told its host is stuck. */
  private stalled(why: string): void {
    for (const run of [...this.runs.values()]) if (run.isolate) this.giveUp(run, why);
    this.onStuck(why);
  }
}

/** Run `id`'s message: its input in its request (`input`), or on the line after it (`follows`). */
function runMessage(
  id: number,
  req: CodeRequest,
  limits: SandboxLimits,
  live: boolean,
  codeId: number | null,
  input: unknown,
  follows?: "input",
): ClientMessage {
  return {
    t: "run",
    id,
    req: { ...req, input, code: codeId === null ? req.code : undefined },
    limits,
    live,
    ...(codeId === null ? {} : { codeId }),
    ...(follows === undefined ? {} : { follows }),
    rawOutput: true,
  };
}

function failed(error: string, timedOut = false): RunResult {
  return { ok: false, error, logs: [], artifacts: [], timedOut };
}
