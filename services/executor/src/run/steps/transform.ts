import type { TransformStep } from "@wf/shared/workflow";
import type { StepKind } from "./step-kind";

export const transformStep: StepKind<TransformStep> = {
  input: (ctx, step, scope) => ctx.render(step.output, scope),
  async run(ctx, step, { scope, input }) {
    return { kind: "completed", output: input ? input.value : await ctx.render(step.output, scope) };
  },
};
