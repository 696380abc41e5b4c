import type { WaitStep } from "@wf/shared/workflow";
import { untilDue } from "../until-due";
import type { StepKind } from "./step-kind";

export const waitStep: StepKind<WaitStep> = {
  async run(ctx, step, { path, state: st, scope }) {
    if (st.waitUntil === null) {
      const until =
        step.seconds !== undefined
          ? Date.now() + step.seconds * 1000
          : Date.parse(String(await ctx.render(step.until, scope)));
      if (Number.isNaN(until)) {
        return { kind: "failed", error: `step \`${step.name}\`: \`until\` is not an ISO-8601 time`, retryable: false };
      }
      // Armed before the wait is recorded (untilDue).
      await ctx.effects.scheduleWake(path, until);
      st.waitUntil = until;
      ctx.committer.emit("step_waiting", path, { until });
      await ctx.committer.flush();
    }
    const due = await untilDue(ctx.effects, path, st.waitUntil, scope.signal);
    if (due === "parked") return { kind: "parked" };
    return { kind: "completed", output: { waitedUntil: st.waitUntil } };
  },
};
