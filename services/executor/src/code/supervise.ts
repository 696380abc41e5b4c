import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";

/** How long stdio may stay open after the group is killed (only a process that escaped the kill can hold it). */
const STREAM_GRACE_MS = 1000;
/** How long a SIGKILLed process may take to be reported dead before the run resolves without it. */
const KILL_GRACE_MS = 2000;
/** How often a running step's resource limits (those not enforced by the kernel's rlimits) are checked. */
const LIMIT_CHECK_MS = 100;
/** An unterminated line longer than this is passed on as it is (a log line is cut far shorter anyway). */
const MAX_PARTIAL_LINE_CHARS = 64 * 1024;

export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

/** A started step process, forked by a zygote. */
export interface StepProcess {
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves when the main process has exited; rejects when it could not start or its status was lost. */
  readonly exited: Promise<ExitStatus>;
  /** SIGKILLs everything the step started; idempotent and harmless once it is all gone. */
  kill(): void;
  /** Why the step must be stopped (a limit it reached), if it must. */
  limitReached(): string | undefined;
}

export type End =
  | { kind: "exited"; status: ExitStatus }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "limit"; message: string }
  | { kind: "failed"; message: string };

type Stop = Extract<End, { kind: "timeout" | "aborted" | "limit" }>;

export interface Outcome {
  end: End;
  stdout: string;
  stderr: string;
  /** The streams cut at the output limit, and where. */
  truncatedAt: { stdout?: number; stderr?: number };
}

/**
 * Runs a step process to its end: captures stdout and stderr up to `outputBytes` each (the rest
 * is read and dropped, so the step runs on as it would), passes lines to `onLine` as they come,
 * kills everything the step started at the timeout, on abort or at a limit, and once the main
 * process has exited kills whatever it left behind, so that a step's processes never outlive it.
 */
export async function supervise(
  proc: StepProcess,
  opts: { timeoutMs: number; signal?: AbortSignal; outputBytes: number; onLine?: (line: string) => void },
): Promise<Outcome> {
  let stopped: Stop | undefined;
  let onStopped: (reason: Stop) => void = () => undefined;
  // Settles KILL_GRACE_MS after a stop, in case the killed process is never reported dead.
  const stoppedLongAgo = new Promise<Stop>((resolve) => {
    onStopped = (reason) => setTimeout(() => resolve(reason), KILL_GRACE_MS).unref();
  });
  const stop = (reason: Stop): void => {
    if (stopped) return;
    stopped = reason;
    proc.kill();
    onStopped(reason);
  };
  const stdout = capture(proc.stdout, opts.outputBytes, opts.onLine);
  const stderr = capture(proc.stderr, opts.outputBytes, opts.onLine);
  const timer = setTimeout(() => stop({ kind: "timeout" }), opts.timeoutMs);
  const limits = setInterval(() => {
    const message = proc.limitReached();
    if (message) stop({ kind: "limit", message });
  }, LIMIT_CHECK_MS);
  const onAbort = (): void => stop({ kind: "aborted" });
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();

  const exit = await Promise.race<End>([
    proc.exited.then(
      (status) => ({ kind: "exited", status }),
      (err: unknown) => ({ kind: "failed", message: err instanceof Error ? err.message : String(err) }),
    ),
    stoppedLongAgo,
  ]);
  clearTimeout(timer);
  clearInterval(limits);
  opts.signal?.removeEventListener("abort", onAbort);
  proc.kill();
  await settledWithin(Promise.all([stdout.ended, stderr.ended]), STREAM_GRACE_MS);
  proc.stdout.destroy();
  proc.stderr.destroy();
  // A limit reached between two checks (a fork refused at the process limit) fails the step all the same.
  const limit = stopped ? undefined : proc.limitReached();
  const end: End = stopped ?? (limit ? { kind: "limit", message: limit } : exit);
  const truncatedAt = {
    ...(stdout.truncated ? { stdout: opts.outputBytes } : {}),
    ...(stderr.truncated ? { stderr: opts.outputBytes } : {}),
  };
  return { end, stdout: stdout.text(), stderr: stderr.text(), truncatedAt };
}

interface Capture {
  ended: Promise<void>;
  text: () => string;
  readonly truncated: boolean;
}

function capture(stream: Readable, maxBytes: number, onLine?: (line: string) => void): Capture {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const lines = onLine && lineSplitter(onLine);
  stream.on("data", (chunk: Buffer) => {
    lines?.write(chunk);
    if (bytes >= maxBytes) {
      bytes = maxBytes + 1;
      return;
    }
    const room = maxBytes - bytes;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    bytes += chunk.length > room ? room + 1 : chunk.length;
  });
  const ended = finished(stream).catch(() => undefined);
  void ended.then(() => lines?.end());
  return {
    ended,
    text: () => Buffer.concat(chunks).toString("utf8"),
    get truncated() {
      return bytes > maxBytes;
    },
  };
}

/** Calls `onLine` for each complete line written, and for the unterminated rest at the end. */
function lineSplitter(onLine: (line: string) => void): { write(chunk: Buffer): void; end(): void } {
  const decoder = new StringDecoder("utf8");
  let partial = "";
  const emit = (text: string): void => {
    const parts = (partial + text).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) onLine(line.replace(/\r$/, ""));
    if (partial.length > MAX_PARTIAL_LINE_CHARS) {
      onLine(partial);
      partial = "";
    }
  };
  return {
    write: (chunk) => emit(decoder.write(chunk)),
    end: () => {
      emit(decoder.end());
      if (partial) onLine(partial.replace(/\r$/, ""));
      partial = "";
    },
  };
}

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
