import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MAX_LOG_LINE_CHARS, MAX_LOG_LINES, timeoutMessage } from "./output";
import { MAX_STREAM_BYTES } from "./supervise";
import { Slots } from "./slots";
import type { CodeRequest, LanguageRunner, RunResult } from "./types";

const RUNNER_SCRIPT = fileURLToPath(new URL("./js-runner-process.mjs", import.meta.url));
/** How long past its timeout a run may go unanswered before the runner is deemed stuck and killed. */
const STUCK_GRACE_MS = 5000;
const STDERR_TAIL_CHARS = 2048;
/**
 * Runs sent to the runner at once; the rest queue here. Above the runner's pool of idle
 * isolates (8), every extra concurrent run would build and throw away an isolate (~1.2 ms CPU),
 * which measured slower than queueing. Queued time does not count against a run's timeout.
 */
const MAX_CONCURRENT_RUNS = 8;

type RunnerMessage =
  | { type: "ready" }
  | { type: "result"; id: number; ok: true; output: string; logs: string[] }
  | { type: "result"; id: number; ok: false; error: string; logs: string[]; timedOut: boolean };

type ResultMessage = Extract<RunnerMessage, { type: "result" }>;

/** One incarnation of the runner process and the runs it has in flight. */
interface Runner {
  proc: ChildProcess;
  ready: Promise<void>;
  inFlight: Map<number, (reply: ResultMessage | Error) => void>;
  stderrTail: string;
  /** Set once it is killed or dead: the next run forks a new one. */
  gone: boolean;
  /** Why the service killed it, if it did. */
  killedBecause?: string;
}

/**
 * The service side of js-runner-process.mjs: one runner process at a time, shared by all
 * JavaScript and TypeScript runs (each with its own request id), started again by the next run
 * after it dies; runs in flight when it dies fail with the reason.
 */
export class JsRunnerClient implements LanguageRunner {
  private runner: Runner | undefined;
  private nextId = 1;
  private readonly slots = new Slots(MAX_CONCURRENT_RUNS);

  constructor(private readonly opts: { cwd: string; memoryLimitMb: number }) {}

  /** Starts the runner process ahead of the first run. */
  async start(): Promise<void> {
    await this.live().ready;
  }

  async run(req: CodeRequest, signal?: AbortSignal): Promise<RunResult> {
    if (!(await this.slots.acquire(signal))) return failed("aborted");
    try {
      return await this.send(req, signal);
    } finally {
      this.slots.release();
    }
  }

  private async send(req: CodeRequest, signal?: AbortSignal): Promise<RunResult> {
    const runner = this.live();
    try {
      await runner.ready;
    } catch (err) {
      return failed(err instanceof Error ? err.message : String(err));
    }
    const id = this.nextId++;
    return new Promise<RunResult>((resolve) => {
      const finish = (result: RunResult): void => {
        runner.inFlight.delete(id);
        clearTimeout(stuckTimer);
        signal?.removeEventListener("abort", onAbort);
        resolve(result);
      };
      const onAbort = (): void => {
        finish(failed("aborted"));
        runner.proc.send({ type: "cancel", id }, () => undefined);
      };
      const stuckTimer = setTimeout(() => {
        finish(failed(timeoutMessage(req.timeoutMs), true));
        this.kill(runner, `a run was still going ${STUCK_GRACE_MS / 1000} s after its timeout`);
      }, req.timeoutMs + STUCK_GRACE_MS);
      runner.inFlight.set(id, (reply) => {
        if (reply instanceof Error) finish(failed(reply.message));
        else if (reply.ok) finish({ ok: true, output: JSON.parse(reply.output) as unknown, logs: reply.logs });
        else finish({ ...failed(reply.timedOut ? timeoutMessage(req.timeoutMs) : reply.error, reply.timedOut), logs: reply.logs });
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) return onAbort();
      runner.proc.send(
        {
          type: "run",
          id,
          language: req.language,
          code: req.code ?? "",
          vars: JSON.stringify(req.vars),
          input: JSON.stringify(req.input ?? null),
          item: req.item === undefined ? undefined : JSON.stringify(req.item),
          timeoutMs: req.timeoutMs,
        },
        // A send that fails means the process is dying: its exit fails the run.
        () => undefined,
      );
    });
  }

  async close(): Promise<void> {
    if (this.runner) this.kill(this.runner, "the code runner was closed");
  }

  /** The current runner process, forked anew when there is none or it died. */
  private live(): Runner {
    if (this.runner && !this.runner.gone) return this.runner;
    const proc = fork(RUNNER_SCRIPT, [this.opts.memoryLimitMb, MAX_LOG_LINES, MAX_LOG_LINE_CHARS, MAX_STREAM_BYTES].map(String), {
      cwd: this.opts.cwd,
      // Nothing of the service's environment: no credentials for an escaped sandbox to find.
      env: {},
      // Our own flags only, never the service's (loaders, inspector); isolated-vm needs no snapshot on Node 20+.
      execArgv: ["--no-node-snapshot", "--disable-warning=ExperimentalWarning"],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const runner: Runner = { proc, ready: Promise.resolve(), inFlight: new Map(), stderrTail: "", gone: false };
    proc.stderr?.setEncoding("utf8").on("data", (text: string) => {
      runner.stderrTail = (runner.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    runner.ready = new Promise<void>((resolve, reject) => {
      proc.on("message", (msg: RunnerMessage) => {
        if (msg.type === "ready") resolve();
        else runner.inFlight.get(msg.id)?.(msg);
      });
      const fail = (how: string): void => {
        runner.gone = true;
        const tail = runner.stderrTail.trim();
        const err = new Error(`the JavaScript runner process ${runner.killedBecause ?? how}${tail ? `: ${tail}` : ""}`);
        reject(err);
        for (const failRun of runner.inFlight.values()) failRun(err);
      };
      // "close" rather than "exit": it comes after stderr is drained, so the error carries all of it.
      proc.on("close", (code, sig) => fail(`exited unexpectedly (${sig ?? `code ${code}`})`));
      proc.on("error", (err) => {
        fail(`failed: ${err.message}`);
        proc.kill("SIGKILL");
      });
    });
    // A failure before "ready" is reported by the runs awaiting it.
    runner.ready.catch(() => undefined);
    this.runner = runner;
    return runner;
  }

  private kill(runner: Runner, reason: string): void {
    runner.gone = true;
    runner.killedBecause ??= `was killed: ${reason}`;
    runner.proc.kill("SIGKILL");
  }
}

function failed(error: string, timedOut = false): RunResult {
  return { ok: false, error, logs: [], timedOut };
}
