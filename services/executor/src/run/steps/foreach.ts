import type { ForeachStep } from "@wf/shared/workflow";
import { iterationScope } from "../scope";
import type { Outcome, StepKind } from "./step-kind";

export const foreachStep: StepKind<ForeachStep> = {
  async run(ctx, step, { path, scope }) {
    const items = typeof step.items === "string" ? await ctx.render(step.items, scope) : step.items;
    if (!Array.isArray(items)) {
      return {
        kind: "failed",
        error: `step \`${step.name}\`: \`items\` must evaluate to an array, got ${items === null ? "null" : typeof items}`,
        retryable: false,
      };
    }
    const results: Outcome[] = new Array(items.length);
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < items.length) {
        const i = next++;
        const r = await ctx.runSequence(step.steps, iterationScope(scope, path, i, items[i], scope.signal));
        results[i] = r;
        if (r.kind === "failed") failed = true;
      }
    };
    const concurrency = Math.min(step.concurrency ?? 1, Math.max(items.length, 1));
    await Promise.all(Array.from({ length: concurrency }, worker));
    const firstFailure = results.findIndex((r) => r?.kind === "failed");
    if (firstFailure >= 0) {
      const r = results[firstFailure] as { error: string };
      return { kind: "failed", error: `step \`${step.name}\` item ${firstFailure}: ${r.error}`, retryable: true };
    }
    if (results.some((r) => r.kind === "parked")) return { kind: "parked" };
    return { kind: "completed", output: results.map((r) => (r.kind === "completed" ? r.output : null)) };
  },
};
