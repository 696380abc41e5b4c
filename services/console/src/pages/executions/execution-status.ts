import type { ConsoleExecutionStatus } from "../../api/types";

const ENDED: ReadonlySet<string> = new Set(["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"]);

/** An execution in one of these has ended: nothing about it changes any more. */
export function hasEnded(status: ConsoleExecutionStatus): boolean {
  return ENDED.has(status);
}

/** What a summary's or a view's duration is: from its start (or request) to its end, or to now while it runs. */
export function executionDuration(
  e: { startAt: number | null; completeAt: number | null; createdAt: number },
  now: number,
): number | null {
  const from = e.startAt ?? e.createdAt;
  if (e.completeAt !== null) return e.completeAt - from;
  return e.startAt === null ? null : now - from;
}
