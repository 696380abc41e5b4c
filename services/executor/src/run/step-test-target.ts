import type { StepTest } from "@wf/shared/execution";
import { ExpressionError } from "@wf/shared/expressions";
import { stepLineage, type Step, type Workflow } from "@wf/shared/workflow";
import { iterationScope, type Scope } from "./scope";

/** Where a step test's step runs, or why it cannot: recorded as the step's failure at `path`. */
export type StepTestTarget =
  { kind: "run"; step: Step; scope: Scope } | { kind: "refused"; step: Step; path: string; error: string };

/**
 * The scope a tested step runs in: the root for a top-level step; inside a foreach, the item the
 * test names, the foreach's `items` rendered in the test's context (what the steps before it
 * gave). A parallel's branches run in their container's scope. No container is recorded.
 */
export async function stepTestTarget(
  workflow: Workflow,
  test: StepTest,
  root: Scope,
  render: (value: string, scope: Scope) => Promise<unknown>,
): Promise<StepTestTarget | null> {
  const lineage = stepLineage(workflow.steps, test.step);
  if (lineage === null) return null;
  let scope = root;
  let foreach = 0;
  for (const ancestor of lineage.ancestors) {
    if (ancestor.type !== "foreach") continue;
    const index = test.itemIndexes[foreach++] ?? 0;
    const refuse = (why: string): StepTestTarget => ({
      kind: "refused",
      step: lineage.step,
      path: `${scope.prefix}${ancestor.name}[${index}].${lineage.step.name}`,
      error: `cannot test step \`${test.step}\` in item ${index} of \`${ancestor.name}\`: ${why}`,
    });
    let items: unknown;
    try {
      items = typeof ancestor.items === "string" ? await render(ancestor.items, scope) : ancestor.items;
    } catch (err) {
      if (err instanceof ExpressionError) return refuse(`its \`items\`: ${err.message}`);
      throw err;
    }
    if (!Array.isArray(items)) return refuse("its `items` is not an array in this context");
    if (index >= items.length)
      return refuse(
        items.length === 0
          ? "its `items` is empty in this context"
          : `its \`items\` has ${items.length} in this context: name an item from 0 to ${items.length - 1}`,
      );
    scope = iterationScope(scope, scope.prefix + ancestor.name, index, items[index], scope.signal);
  }
  return { kind: "run", step: lineage.step, scope };
}
