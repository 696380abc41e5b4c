import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";

/** Per stream; beyond it the step is killed and fails rather than the service buffering without bound. */
export const MAX_STREAM_BYTES = 10 * 1024 * 1024;
/** How long stdio may stay open after the group is killed (only a process that escaped the group can hold it). */
const STREAM_GRACE_MS = 1000;
/** How long a SIGKILLed process may take to be reported dead before the run resolves without it. */
const KILL_GRACE_MS = 2000;

export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

/** A started step process, whether spawned by the service or forked by the Python zygote. */
export interface StepProcess {
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves when the main process has exited; rejects when it could not start or its status was lost. */
  readonly exited: Promise<ExitStatus>;
  /** SIGKILLs the process group; idempotent and harmless once the group is gone. */
  killGroup(): void;
}

export type End =
  | { kind: "exited"; status: ExitStatus }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "overflow"; stream: "stdout" | "stderr" }
  | { kind: "failed"; message: string };

type Stop = Extract<End, { kind: "timeout" | "aborted" | "overflow" }>;

export interface Outcome {
  end: End;
  stdout: string;
  stderr: string;
}

/**
 * Runs a step process to its end: captures stdout and stderr up to MAX_STREAM_BYTES each, kills
 * the group at the timeout, on abort or on overflow, and once the main process has exited kills
 * whatever it left behind in its group, so that a step's processes never outlive the step.
 */
export async function supervise(proc: StepProcess, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<Outcome> {
  let stopped: Stop | undefined;
  let onStopped: (reason: Stop) => void = () => undefined;
  // Settles KILL_GRACE_MS after a stop, in case the killed process is never reported dead.
  const stoppedLongAgo = new Promise<Stop>((resolve) => {
    onStopped = (reason) => setTimeout(() => resolve(reason), KILL_GRACE_MS).unref();
  });
  const stop = (reason: Stop): void => {
    if (stopped) return;
    stopped = reason;
    proc.killGroup();
    onStopped(reason);
  };
  const stdout = capture(proc.stdout, () => stop({ kind: "overflow", stream: "stdout" }));
  const stderr = capture(proc.stderr, () => stop({ kind: "overflow", stream: "stderr" }));
  const timer = setTimeout(() => stop({ kind: "timeout" }), opts.timeoutMs);
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
  opts.signal?.removeEventListener("abort", onAbort);
  proc.killGroup();
  await settledWithin(Promise.all([stdout.ended, stderr.ended]), STREAM_GRACE_MS);
  proc.stdout.destroy();
  proc.stderr.destroy();
  // Read `stopped` only now: an overflow noticed while draining still fails the run.
  return { end: stopped ?? exit, stdout: stdout.text(), stderr: stderr.text() };
}

function capture(stream: Readable, onOverflow: () => void): { ended: Promise<void>; text: () => string } {
  const chunks: Buffer[] = [];
  let bytes = 0;
  stream.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_STREAM_BYTES) onOverflow();
    else chunks.push(chunk);
  });
  return {
    ended: finished(stream).catch(() => undefined),
    text: () => Buffer.concat(chunks).toString("utf8"),
  };
}

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
