import type { Workflow } from "./schema";
import { childSteps, type Step } from "./step-types";

/**
 * Calls `visit` for every step in document order, nested ones included (foreach `steps`, every
 * parallel branch), with the chain of enclosing steps, outermost first.
 */
export function walkSteps(steps: readonly Step[], visit: (step: Step, parents: readonly Step[]) => void): void {
  const walk = (list: readonly Step[], parents: readonly Step[]): void => {
    for (const step of list) {
      visit(step, parents);
      const inner = [...parents, step];
      for (const children of childSteps(step)) walk(children, inner);
    }
  };
  walk(steps, []);
}

/** The number of top-level steps: what an execution's progress counts. */
export function countSteps(workflow: Workflow): number {
  return workflow.steps.length;
}
