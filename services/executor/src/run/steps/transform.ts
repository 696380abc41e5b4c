import type { TransformStep } from "@wf/shared/workflow";
import type { StepKind } from "./step-kind";

export const transformStep: StepKind<TransformStep> = {
  async run(ctx, step, { scope }) {
    return { kind: "completed", output: await ctx.render(step.output, scope) };
  },
};
