import type { RunEffects } from "./effects";
import { sleep } from "./signals";

/**
 * Waits for a durable timer's due time, that of a `wait` step or of a retry's next attempt.
 * Short waits stay in memory (the durable timer is there too, should this process die); longer
 * ones park the branch. A parked branch re-arms its timer, so a wake that came early (clock skew
 * between hosts) is not the last one.
 */
export async function untilDue(effects: RunEffects, path: string, dueAt: number, signal: AbortSignal): Promise<"due" | "parked"> {
  let remaining = dueAt - Date.now();
  if (remaining > effects.holdMs) {
    await effects.scheduleWake(path, dueAt);
    return "parked";
  }
  // Timers may fire a millisecond early: a wait never ends before its due time.
  while (remaining > 0) {
    await sleep(remaining, signal);
    remaining = dueAt - Date.now();
  }
  return "due";
}
