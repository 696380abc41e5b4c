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

/** Where a step sits: its enclosing steps, outermost first, and the step list holding each of them and then it. */
export interface StepLineage {
  step: Step;
  ancestors: readonly Step[];
  /** `lists[k]` holds `ancestors[k]`; the last holds `step`. */
  lists: readonly (readonly Step[])[];
}

/** The step's own name at the end of its recorded path (`loop[2].name` → `name`): names are unique in a file. */
export function stepNameOf(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1);
}

/** The lineage of the step named `name` (names are unique in a file, nested ones included); null if none. */
export function stepLineage(steps: readonly Step[], name: string): StepLineage | null {
  const find = (list: readonly Step[], ancestors: Step[], lists: (readonly Step[])[]): StepLineage | null => {
    for (const step of list) {
      if (step.name === name) return { step, ancestors, lists: [...lists, list] };
      for (const children of childSteps(step)) {
        const found = find(children, [...ancestors, step], [...lists, list]);
        if (found) return found;
      }
    }
    return null;
  };
  return find(steps, [], []);
}
