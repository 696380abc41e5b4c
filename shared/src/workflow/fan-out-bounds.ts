import type { Finding } from "./issues";
import type { PathSegment } from "./locate";
import { isPlainObject } from "./value-types";

/**
 * What one container step runs at once: a `foreach`'s items (`concurrency`) and a `parallel`'s branches. Every step
 * they start waits in a pool shared with every owner (a runner runs 32 process steps at once, an executor sends it
 * twice that, and all of an execution's code steps go to one runner), so more at once adds no speed, only waiting
 * that the service must hold: a foreach of 3,000 at once would hold 3,000 steps in flight. The same for every plan:
 * a file valid for one owner stays valid for another and when a plan changes; the shared pools give plans their shares.
 */
export const MAX_FOREACH_CONCURRENCY = 100;
export const MAX_PARALLEL_BRANCHES = 100;
/**
 * What one execution's containers run at once together, nested or side by side: a foreach of 100 items at once whose
 * items each run a foreach of 100 would otherwise hold 10,000 steps in flight. Each container still runs one run at
 * a time whatever the others hold, so that nested ones always move.
 */
export const MAX_EXECUTION_FAN_OUT = 100;

/**
 * The bounds above, checked when a file is validated (saved, imported, run from the command line), not by the schema
 * that reads a stored definition: a workflow saved before them still parses, and runs at the bound
 * (docs/workflow-format.md#steps).
 */
export function fanOutFindings(step: Record<string, unknown>, path: PathSegment[]): Finding[] {
  if (step.type === "foreach" && typeof step.concurrency === "number" && step.concurrency > MAX_FOREACH_CONCURRENCY) {
    const message = `must be at most ${MAX_FOREACH_CONCURRENCY}, not ${step.concurrency}: a foreach runs at most ${MAX_FOREACH_CONCURRENCY} items at once`;
    return [{ path: [...path, "concurrency"], at: "value", message }];
  }
  const branches = step.type === "parallel" && isPlainObject(step.branches) ? Object.keys(step.branches).length : 0;
  if (branches > MAX_PARALLEL_BRANCHES) {
    const message = `a parallel step has at most ${MAX_PARALLEL_BRANCHES} branches, not ${branches}: split it, or run a foreach over a list (at most ${MAX_FOREACH_CONCURRENCY} items at once)`;
    return [{ path: [...path, "branches"], at: "key", message }];
  }
  return [];
}
