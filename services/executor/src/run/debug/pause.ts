import {
  idleDue,
  newId,
  type Breakpoint,
  type DebugState,
  type ExecutionSnapshot,
  type PauseContext,
  type PauseRecord,
} from "@wf/shared/execution";
import type { RunCommitter } from "../committer";
import type { RunEffects } from "../effects";
import { cutValue, jsonBytes } from "../result-limits";
import type { Scope } from "../scope";
import type { Point } from "./breakpoints";

/** What a pause shows beyond the variables, outputs and item: the parts of its phase. */
export type PauseDetails = Omit<PauseContext, "vars" | "outputs" | "item">;

/** Who paused: a breakpoint, or the `step` / `step_into` command's next boundary. */
export type PauseCause = { breakpointId: string; type: Breakpoint["type"] };

/**
 * Writes a pause into the snapshot and makes it durable: the run then parks (returns "parked")
 * like an approval gate, leaving memory until a command wakes it. The pause's context is cut to a
 * share of the record (the step results keep everything); `checkpoint` is where an llm or agent
 * step's attempt stands, kept when it fits so that the attempt goes on from there.
 */
export async function writePause(
  committer: RunCommitter,
  effects: RunEffects,
  point: Point,
  cause: PauseCause,
  scope: Scope,
  details: PauseDetails,
  checkpoint?: { attempt: number; state: unknown },
): Promise<PauseRecord> {
  const snap = committer.snap;
  const d = snap.debug!;
  const pause: PauseRecord = {
    id: newId(),
    breakpointId: cause.breakpointId,
    type: cause.type,
    stepPath: point.path,
    phase: point.phase,
    occurrence: point.occurrence,
    pausedAt: Date.now(),
    context: pauseContext(snap, scope, details, committer.limits.inputBytes),
  };
  d.pause = pause;
  d.mode = "run";
  d.checkpoint =
    checkpoint && jsonBytes(checkpoint.state) <= committer.limits.toolCallBytes
      ? { stepPath: point.path, attempt: checkpoint.attempt, state: structuredClone(checkpoint.state) }
      : null;
  snap.currentStep = point.path;
  committer.emit("debug_paused", point.path, { ...pause });
  await committer.flush();
  await armIdleTimer(snap, effects);
  return pause;
}

/**
 * What the points the run is to come back to keep in the record: the waiting points' conversations and watch changes,
 * and the conversations of the calls resumed from. All of them share a pause's own share of the record
 * (limits.toolCallBytes), beside the pause's own checkpoint: one that does not fit is not kept, and its attempt starts
 * over when the run comes back to it.
 */
export function keptBytes(d: DebugState): number {
  let sum = 0;
  for (const w of d.waiting)
    sum += (w.checkpoint ? jsonBytes(w.checkpoint.state) : 0) + (w.watches ? jsonBytes(w.watches) : 0);
  for (const r of d.resumed) if (r.checkpoint) sum += jsonBytes(r.checkpoint.state);
  return sum;
}

/** Arms (again: the timer's id makes a second arming of the same due time a no-op) the current pause's idle timer. */
export async function armIdleTimer(snap: ExecutionSnapshot, effects: RunEffects): Promise<void> {
  const pause = snap.debug?.pause;
  const due = snap.debug ? idleDue(snap.debug) : null;
  if (pause && due !== null) await effects.scheduleDebugIdle(pause.id, due);
}

/**
 * The context of a pause, each part cut to its share of `room` (a step's monitored-input
 * limit): what can be edited (the input, a tool call's arguments, the output) gets the most.
 */
function pauseContext(snap: ExecutionSnapshot, scope: Scope, details: PauseDetails, room: number): PauseContext {
  const small = Math.floor(room / 8);
  const outputs: Record<string, unknown> = {};
  for (const [path, st] of Object.entries(snap.steps)) if (st.status === "COMPLETED") outputs[path] = st.output ?? null;
  const context: PauseContext = {
    ...details,
    vars: cutValue(snap.vars, small, "vars") as Record<string, unknown>,
    outputs: cutValue(outputs, small, "outputs") as Record<string, unknown>,
  };
  if (scope.item !== undefined) context.item = cutValue(scope.item, small, "item");
  if (details.input !== undefined) context.input = cutValue(details.input, Math.floor(room / 2), "input");
  if (details.output !== undefined) context.output = cutValue(details.output, Math.floor(room / 4), "output");
  if (details.toolCall)
    context.toolCall = {
      ...details.toolCall,
      arguments: cutValue(details.toolCall.arguments, Math.floor(room / 2), "arguments"),
    };
  if (details.watch)
    context.watch = {
      ...details.watch,
      before: cutValue(details.watch.before, small, "value"),
      after: cutValue(details.watch.after, small, "value"),
    };
  return context;
}
