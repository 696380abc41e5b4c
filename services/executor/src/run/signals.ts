/** The run was cancelled (cancel command): unwind, mark running steps CANCELLED. */
export class CancelledError extends Error {
  constructor() {
    super("execution cancelled");
    this.name = "CancelledError";
  }
}

/** Another actor took the execution over (our lease lapsed): stop without writing anything. */
export class LostOwnershipError extends Error {
  constructor(execId: string) {
    super(`execution ${execId} was taken over by another actor`);
    this.name = "LostOwnershipError";
  }
}

/** Stops a step at once when its signal has aborted (the run was cancelled, or the step timed out). */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}
