import type { RunEffects } from "./effects";
import { sleep } from "../sleep";

/**
 * Waits for a durable timer's due time, that of a `wait` step or of a retry's next attempt.
 * Short waits stay in memory (the durable timer is there too, should this process die); longer
 * ones park the branch. A parked branch re-arms its timer, so a wake that came early (clock skew
 * between hosts) is not the last one. A stopping process parks every wait. `armed`: whether
 * the wait's durable timer was armed already (a replay); a new wait gets exactly one.
 */
export async function untilDue(
  effects: RunEffects,
  path: string,
  dueAt: number,
  signal: AbortSignal,
  armed = true,
): Promise<"due" | "parked"> {
  let remaining = dueAt - Date.now();
  if (remaining > effects.holdMs || effects.handingBack()) {
    await effects.scheduleWake(path, dueAt);
    return "parked";
  }
  // Held in memory, and backed by a timer should this process die meanwhile.
  if (!armed) await effects.scheduleWake(path, dueAt);
  // Timers may fire a millisecond early: a wait never ends before its due time.
  while (remaining > 0) {
    await sleep(remaining, signal);
    remaining = dueAt - Date.now();
  }
  return "due";
}
