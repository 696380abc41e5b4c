import type { Step, WaitStep } from "@wf/shared/workflow";
import { untilDue, writeBegunWait } from "../until-due";
import type { StepAt, StepContext, StepKind } from "./step-kind";

/**
 * Begins `step`'s durable wait until `until` (`st.waitUntil`) and waits for it (untilDue): its timer armed before the
 * wait is recorded, by the park's write where it parks the run, else by its own (writeBegunWait). `reason`: what the
 * step waits for, where it is not a `wait` step's own time.
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
  return untilDue(
    ctx.effects,
    ctx.committer,
    path,
    until,
    scope.signal,
    writeBegunWait(ctx.committer, ctx.workflow, step),
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
    } else due = await untilDue(ctx.effects, ctx.committer, path, until, scope.signal);
    if (due === "parked") return { kind: "parked" };
    return { kind: "completed", output: { waitedUntil: until } };
  },
};
