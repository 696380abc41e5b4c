import { MAX_PARALLEL_BRANCHES, type ParallelStep } from "@wf/shared/workflow";
import { runBounded } from "./bounded-runs";
import { waitsForPause, type StepKind } from "./step-kind";

export const parallelStep: StepKind<ParallelStep> = {
  async run(ctx, step, { scope }) {
    const branches = Object.entries(step.branches);
    // All at once, up to the bound a workflow saved before it may pass; past it, the next as one ends (none after a
    // failure, as in a foreach).
    const width = Math.min(branches.length, MAX_PARALLEL_BRANCHES);
    // A branch's last result, when its step acted outside, is written as its worker stops while other branches run
    // on (one of them may be long), or by the next branch it runs; the last branch's is left to what follows the
    // parallel (the next step's start, the end), as a step's own.
    const results = await runBounded(
      branches.length,
      width,
      ctx.fanOut,
      (i) => ctx.runSequence(branches[i]![1], scope, { lastWrittenAfter: true }),
      () => ctx.committer.writeOwed(),
    );
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
