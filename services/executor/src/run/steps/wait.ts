import type { StepState } from "@wf/shared/execution";
import type { WaitStep } from "@wf/shared/workflow";
import { untilDue } from "../until-due";
import type { StepContext, StepKind } from "./step-kind";

/**
 * Begins a step's durable wait until `until` (`st.waitUntil`): its timer armed before the wait is recorded (untilDue),
 * then `step_waiting` written. `reason`: what the step waits for, where it is not a `wait` step's own time.
 */
export async function beginWait(
  ctx: StepContext,
  path: string,
  st: StepState,
  until: number,
  reason?: string,
): Promise<void> {
  await ctx.effects.scheduleWake(path, until);
  st.waitUntil = until;
  ctx.committer.emit("step_waiting", path, reason === undefined ? { until } : { until, reason });
  await ctx.committer.flush();
}

export const waitStep: StepKind<WaitStep> = {
  async run(ctx, step, { path, state: st, scope }) {
    let until = st.waitUntil;
    if (until === null) {
      until =
        step.seconds !== undefined
          ? Date.now() + step.seconds * 1000
          : Date.parse(String(await ctx.render(step.until, scope)));
      if (Number.isNaN(until)) {
        return { kind: "failed", error: `step \`${step.name}\`: \`until\` is not an ISO-8601 time`, retryable: false };
      }
      await beginWait(ctx, path, st, until);
    }
    const due = await untilDue(ctx.effects, path, until, scope.signal);
    if (due === "parked") return { kind: "parked" };
    return { kind: "completed", output: { waitedUntil: until } };
  },
};
