import type { Step, Workflow } from "./schema";

/**
 * Calls `visit` for every step in document order, nested ones included (foreach `steps`, every
 * parallel branch), with the chain of enclosing steps, outermost first.
 */
export function walkSteps(steps: readonly Step[], visit: (step: Step, parents: readonly Step[]) => void): void {
  const walk = (list: readonly Step[], parents: readonly Step[]): void => {
    for (const step of list) {
      visit(step, parents);
      const inner = [...parents, step];
      if (step.type === "foreach") walk(step.steps, inner);
      else if (step.type === "parallel") for (const branch of Object.values(step.branches)) walk(branch, inner);
    }
  };
  walk(steps, []);
}

/** The number of top-level steps: what an execution's progress counts. */
export function countSteps(workflow: Workflow): number {
  return workflow.steps.length;
}
