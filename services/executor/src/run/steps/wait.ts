import type { Step, WaitStep } from "@wf/shared/workflow";
import { untilDue } from "../until-due";
import type { StepAt, StepContext, StepKind } from "./step-kind";

/**
 * Begins `step`'s durable wait until `until` (`st.waitUntil`) and waits for it (untilDue): its timer armed before the
 * wait is recorded. A step of the workflow's own sequence that parks is recorded by the park's write, which follows at
 * once, not by one of its own before it: a crash between the two leaves the record as it was, and the timer's wake (or
 * the command's next delivery) begins the wait again. Anywhere else (a branch of a `parallel`, an item of a `foreach`)
 * other steps may run on past its due time, and it is written first: its timer's wake, put off while the run holds
 * the execution, then finds it held (or made), not taken up beside the run or dropped as unknown. So is a wait waited
 * out in memory. `reason`: what the step waits for, where it is not a `wait` step's own time.
 */
export async function beginWait(
  ctx: StepContext,
  step: Step,
  at: StepAt,
  until: number,
  reason?: string,
): Promise<"due" | "parked"> {
  const { path, state: st, scope } = at;
  await ctx.effects.scheduleWake(path, until);
  st.waitUntil = until;
  ctx.committer.emit("step_waiting", path, reason === undefined ? { until } : { until, reason });
  const parksTheRun = ctx.workflow.steps.includes(step);
  return untilDue(ctx.effects, path, until, scope.signal, (parks) =>
    parks && parksTheRun ? Promise.resolve() : ctx.committer.flush(),
  );
}

export const waitStep: StepKind<WaitStep> = {
  async run(ctx, step, at) {
    const { path, state: st, scope } = at;
    let until = st.waitUntil;
    let due: "due" | "parked";
    if (until === null) {
      until =
        step.seconds !== undefined
          ? Date.now() + step.seconds * 1000
          : Date.parse(String(await ctx.render(step.until, scope)));
      if (Number.isNaN(until)) {
        return { kind: "failed", error: `step \`${step.name}\`: \`until\` is not an ISO-8601 time`, retryable: false };
      }
      due = await beginWait(ctx, step, at, until);
    } else due = await untilDue(ctx.effects, path, until, scope.signal);
    if (due === "parked") return { kind: "parked" };
    return { kind: "completed", output: { waitedUntil: until } };
  },
};
