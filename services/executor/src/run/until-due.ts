import type { Step, Workflow } from "@wf/shared/workflow";
import type { RunCommitter } from "./committer";
import type { RunEffects } from "./effects";
import { sleep } from "../sleep";

/**
 * Waits for a durable timer's due time: a `wait` step's, a retry's next attempt's, a sub-workflow start put off by its
 * owner's budget. The timer is armed when the wait begins, before the wait is recorded (a crash in between leaves a
 * wake for a run that begins it again). Short waits stay in memory (the timer is there too, should this process die);
 * longer ones park the branch, as does a stopping process. A parked wait's timer is armed again only when it woke the
 * run early (its host's clock ahead of this one's), so that that wake is not the last: a run replayed for another
 * reason (each child of a wide foreach ending) armed every parked wait's timer again, a timer and later a resume per
 * waiting step per replay.
 *
 * `begun`: the wait began just now (beginWait, a retry's backoff), its timer armed and its change not written: called,
 * with whether it parks, before it parks or is waited out in memory (writeBegunWait). Its timer is not armed again.
 * Armed again, it follows a result of an outside step left to what runs next (RunCommitter.oweWrite), written first: a
 * wait replayed writes nothing before (a retry's backoff is reached before its step's start write, which would carry
 * it), and left to the park's write, a crash between the two would find that step in flight after it ended.
 */
export async function untilDue(
  effects: RunEffects,
  committer: Pick<RunCommitter, "writeOwed">,
  path: string,
  dueAt: number,
  signal: AbortSignal,
  begun?: (parks: boolean) => Promise<void>,
): Promise<"due" | "parked"> {
  let remaining = dueAt - Date.now();
  if (remaining > effects.holdMs || effects.handingBack()) {
    if (begun) await begun(true);
    else if (effects.wokenFor === path) {
      await committer.writeOwed();
      await effects.scheduleWake(path, dueAt);
    }
    return "parked";
  }
  await begun?.(false);
  remaining = dueAt - Date.now();
  // Timers may fire a millisecond early: a wait never ends before its due time.
  while (remaining > 0) {
    await sleep(remaining, signal);
    remaining = dueAt - Date.now();
  }
  return "due";
}

/**
 * untilDue's `begun` for `step`'s wait begun just now (a `wait` step's, a sub-workflow start put off, a retry's backoff).
 * A step of the workflow's own sequence that parks is recorded by the park's write, which follows at once with nothing
 * run in between, not by one of its own before it: a crash between the two leaves the record as it was, and the timer's
 * wake (or the command's next delivery) begins the wait again. Anywhere else (a branch of a `parallel`, an item of a
 * `foreach`) other steps may run on past its due time, and it is written first: its timer's wake, put off while the run
 * holds the execution, then finds it held (or made), not taken up beside the run or dropped as unknown. So is a wait
 * waited out in memory.
 */
export function writeBegunWait(
  committer: Pick<RunCommitter, "flush">,
  workflow: Workflow,
  step: Step,
): (parks: boolean) => Promise<void> {
  const parksTheRun = workflow.steps.includes(step);
  return (parks) => (parks && parksTheRun ? Promise.resolve() : committer.flush());
}
