import { MAX_FOREACH_CONCURRENCY, type ForeachStep } from "@wf/shared/workflow";
import { iterationScope, type Scope } from "../scope";
import { runBounded } from "./bounded-runs";
import { waitsForPause, type Outcome, type StepContext, type StepKind } from "./step-kind";

const PARKED: Outcome = { kind: "parked" };

export const foreachStep: StepKind<ForeachStep> = {
  input: renderItems,
  async run(ctx, step, { path, scope, input }) {
    const items = input ? input.value : await renderItems(ctx, step, scope);
    if (!Array.isArray(items)) {
      return {
        kind: "failed",
        error: `step \`${step.name}\`: \`items\` must evaluate to an array, got ${items === null ? "null" : typeof items}`,
        retryable: false,
      };
    }
    // A workflow saved before the bound may ask for more: it runs at the bound (docs/workflow-format.md#steps).
    const concurrency = Math.min(step.concurrency ?? 1, MAX_FOREACH_CONCURRENCY, Math.max(items.length, 1));
    // An item's last result, when its step acted outside, is written by its worker's next item (by the first write of
    // its first step, when that writes before acting: carriesOwedWrite), or as the worker stops while others run on
    // (the last one's is left to what follows the foreach, as a step's own): not twice back to back.
    const results = await runBounded(
      items.length,
      concurrency,
      ctx.fanOut,
      async (i) => {
        const iteration = iterationScope(scope, path, i, items[i], scope.signal);
        return ctx.debug && (await ctx.debug.item(path, i, iteration)).kind === "park"
          ? PARKED
          : ctx.runSequence(step.steps, iteration, { lastWrittenAfter: true });
      },
      () => ctx.committer.writeOwed(),
    );
    const firstFailure = results.findIndex((r) => r?.kind === "failed");
    if (firstFailure >= 0 && !waitsForPause(ctx, results)) {
      const r = results[firstFailure] as { error: string };
      return { kind: "failed", error: `step \`${step.name}\` item ${firstFailure}: ${r.error}`, retryable: true };
    }
    if (results.some((r) => r.kind === "parked")) return { kind: "parked" };
    return { kind: "completed", output: results.map((r) => (r.kind === "completed" ? r.output : null)) };
  },
};

function renderItems(ctx: StepContext, step: ForeachStep, scope: Scope): Promise<unknown> {
  return typeof step.items === "string" ? ctx.render(step.items, scope) : Promise.resolve(step.items);
}
