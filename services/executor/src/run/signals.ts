/** The run was cancelled (cancel command): unwind, mark running steps CANCELLED. */
export class CancelledError extends Error {
  /** `message`: the execution's error once cancelled (an abort in the debugger says who aborted it). */
  constructor(message = "execution cancelled") {
    super(message);
    this.name = "CancelledError";
  }
}

/** Another actor took the execution over (our lease lapsed): stop without writing anything. */
export class LostOwnershipError extends Error {
  constructor(execId: string, message = `execution ${execId} was taken over by another actor`) {
    super(message);
    this.name = "LostOwnershipError";
  }
}

/**
 * A start that deferred its record's creation (Committer.deferCreate) found it created by another:
 * a cancel, or another delivery of its command. What it ran is dropped; the record decides.
 */
export class StartTakenError extends LostOwnershipError {
  constructor(execId: string) {
    super(execId, `execution ${execId} was recorded by another writer before its first write`);
    this.name = "StartTakenError";
  }
}

/** Stops a step at once when its signal has aborted (the run was cancelled, or the step timed out). */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}
