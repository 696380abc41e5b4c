import type { DebugState } from "@wf/shared/execution";

/** Seconds as an operator reads them: `1h`, `15m`, `90s`. */
export function formatIdle(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** The error of an execution cancelled because its pause waited too long. */
export function idleError(debug: DebugState): string {
  return `debug session idle for ${formatIdle(debug.idleTimeout)}`;
}
