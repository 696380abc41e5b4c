import { MAX_PARALLEL_BRANCHES, type ParallelStep } from "@wf/shared/workflow";
import { waitsForPause, type Outcome, type StepKind } from "./step-kind";

export const parallelStep: StepKind<ParallelStep> = {
  async run(ctx, step, { scope }) {
    const branches = Object.entries(step.branches);
    // All at once, up to the bound a workflow saved before it may pass; past it, the next as one ends (none after a
    // failure, as in a foreach).
    const results: Outcome[] = new Array(branches.length);
    let next = 0;
    let failed = false;
    const worker = async (): Promise<void> => {
      while (!failed && next < branches.length) {
        const i = next++;
        const r = await ctx.runSequence(branches[i]![1], scope);
        results[i] = r;
        if (r.kind === "failed") failed = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(branches.length, MAX_PARALLEL_BRANCHES) }, worker));
    const failedAt = results.findIndex((r) => r?.kind === "failed");
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
