import type { ExecutionSnapshot } from "@wf/shared/execution";
import { childSteps, walkSteps, type Step } from "@wf/shared/workflow";

/**
 * The recorded paths of the steps inside a container (none for another step), for a timeout,
 * cancel or retry of the container to find them.
 */
export function nestedPaths(snap: ExecutionSnapshot, step: Step, path: string, prefix: string): string[] {
  return Object.keys(snap.steps).filter(nestedPathTest(step, path, prefix));
}

/**
 * Whether a path is that of a step inside the container `step` at `path` (never, for another
 * step): foreach iterations live under `path[i].`; parallel branches' steps sit beside the
 * container, under the same prefix, with their names.
 */
export function nestedPathTest(step: Step, path: string, prefix: string): (p: string) => boolean {
  const children = childSteps(step);
  if (children.length === 0) return () => false;
  const names = new Set<string>();
  for (const list of children) walkSteps(list, (s) => names.add(s.name));
  return (p) => {
    if (p.startsWith(`${path}[`)) return true;
    if (!p.startsWith(prefix)) return false;
    const rest = p.slice(prefix.length);
    const head = rest.split(/[.[]/)[0]!;
    return names.has(head) && (rest === head || rest.startsWith(`${head}[`));
  };
}
