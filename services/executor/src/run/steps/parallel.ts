import type { ParallelStep } from "@wf/shared/workflow";
import { waitsForPause, type StepKind } from "./step-kind";

export const parallelStep: StepKind<ParallelStep> = {
  async run(ctx, step, { scope }) {
    const branches = Object.entries(step.branches);
    const results = await Promise.all(branches.map(([, steps]) => ctx.runSequence(steps, scope)));
    const failedAt = results.findIndex((r) => r.kind === "failed");
    if (failedAt >= 0 && !waitsForPause(ctx, results)) {
      const r = results[failedAt] as { error: string };
      return {
        kind: "failed",
        error: `step \`${step.name}\` branch ${branches[failedAt]![0]}: ${r.error}`,
        retryable: true,
      };
    }
    if (results.some((r) => r.kind === "parked")) return { kind: "parked" };
    const output: Record<string, unknown> = {};
    branches.forEach(([name], i) => {
      const r = results[i]!;
      output[name] = r.kind === "completed" ? r.output : null;
    });
    return { kind: "completed", output };
  },
};
