import type { DebugState } from "@wf/shared/execution";

/**
 * When the current pause has waited `idleTimeout` without a command: counted from the pause,
 * or from the last edit made at it (a `set` is activity too). Null when nothing is paused.
 */
export function idleDue(debug: DebugState): number | null {
  const pause = debug.pause;
  if (!pause) return null;
  let last = pause.pausedAt;
  for (const e of debug.edits) if (e.pauseId === pause.id && e.at > last) last = e.at;
  return last + debug.idleTimeout * 1000;
}

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
