import { lineDiff } from "@wf/shared/text";
import type { ExecutionView, StepView, WorkflowDiffLine } from "../../api/types";
import { prettyJson } from "../../ui/format";
import { buildStepTree, type TreeNode } from "./step-tree";

/** One step path of either run, with what each run recorded for it (null: it did not run there). */
export interface CompareRow {
  path: string;
  /** How deep inside foreach items and parallel branches it is: 0 at the top. */
  depth: number;
  /** The foreach or parallel steps it is inside, outermost first. */
  containers: string[];
  a: StepView | null;
  b: StepView | null;
  /** B's duration less A's, in milliseconds; null unless both have one. */
  durationDelta: number | null;
  /** The line diff of the two outputs, pretty-printed JSON. */
  output: WorkflowDiffLine[];
  outputDiffers: boolean;
  /** Ran in one run only, or a different status, attempts, error or output. */
  differs: boolean;
}

interface Placed {
  path: string;
  depth: number;
  containers: string[];
}

/** The steps of one run in workflow order, nested ones after the step that holds them. */
function flatten(nodes: TreeNode[], depth = 0, containers: string[] = []): Placed[] {
  return nodes.flatMap((n): Placed[] =>
    n.kind === "step"
      ? [{ path: n.path, depth, containers }, ...flatten(n.children, depth + 1, [...containers, n.path])]
      : flatten(n.children, depth, containers),
  );
}

/** B's order merged into A's: a path only B has goes right after the path B has before it. */
function mergeOrder(a: Placed[], b: Placed[]): Placed[] {
  const out = [...a];
  const at = new Map(out.map((p, i) => [p.path, i]));
  let after = -1;
  for (const p of b) {
    const found = at.get(p.path);
    if (found !== undefined) {
      after = found;
      continue;
    }
    out.splice(after + 1, 0, p);
    after += 1;
    out.forEach((q, i) => at.set(q.path, i));
  }
  return out;
}

/** The outputs' line diff; a side that did not run has no lines at all (not one empty line). */
function outputDiff(a: StepView | null, b: StepView | null): WorkflowDiffLine[] {
  const lines = (s: StepView) => prettyJson(s.output).split("\n");
  if (a === null) return b === null ? [] : lines(b).map((line) => ({ op: "add", line }));
  if (b === null) return lines(a).map((line) => ({ op: "remove", line }));
  return lineDiff(prettyJson(a.output), prettyJson(b.output));
}

type RunSteps = Pick<ExecutionView, "definition" | "steps">;

/** One row per step path of both runs, in workflow order (A's, with B's own steps slotted in). */
export function compareRows(a: RunSteps, b: RunSteps): CompareRow[] {
  const order = mergeOrder(
    flatten(buildStepTree(a.definition, a.steps)),
    flatten(buildStepTree(b.definition, b.steps)),
  );
  return order.map(({ path, depth, containers }) => {
    const sa = a.steps[path] ?? null;
    const sb = b.steps[path] ?? null;
    const output = outputDiff(sa, sb);
    const outputDiffers = output.some((l) => l.op !== "same");
    const differs =
      (sa === null) !== (sb === null) ||
      (sa !== null &&
        sb !== null &&
        (sa.status !== sb.status || sa.attempts !== sb.attempts || sa.error !== sb.error || outputDiffers));
    const durationDelta = sa?.duration != null && sb?.duration != null ? sb.duration - sa.duration : null;
    return { path, depth, containers, a: sa, b: sb, durationDelta, output, outputDiffers, differs };
  });
}

/** A container with more nested rows than this shows them folded until opened. */
export const FOLD_AT = 6;

/** How many rows each container holds, at any depth, and how many of them differ. */
export function nestedCounts(rows: readonly CompareRow[]): Map<string, { rows: number; differ: number }> {
  const counts = new Map<string, { rows: number; differ: number }>();
  for (const row of rows)
    for (const c of row.containers) {
      const n = counts.get(c) ?? { rows: 0, differ: 0 };
      n.rows += 1;
      if (row.differs) n.differ += 1;
      counts.set(c, n);
    }
  return counts;
}

/**
 * The rows to show: inside a container of more than FOLD_AT rows only once it is opened; with
 * `onlyDifferences`, a row that differs or holds one that does.
 */
export function visibleRows(
  rows: readonly CompareRow[],
  { onlyDifferences, opened }: { onlyDifferences: boolean; opened: ReadonlySet<string> },
): CompareRow[] {
  const counts = nestedCounts(rows);
  return rows.filter((row) => {
    if (row.containers.some((c) => (counts.get(c)?.rows ?? 0) > FOLD_AT && !opened.has(c))) return false;
    return !onlyDifferences || row.differs || (counts.get(row.path)?.differ ?? 0) > 0;
  });
}

type RunOf = Pick<ExecutionView, "workflowId" | "definition">;

/** The workflow's name as the run recorded it, else its id. */
function workflowName(run: RunOf): string {
  const def = run.definition;
  return isRecord(def) && typeof def.name === "string" ? `“${def.name}”` : run.workflowId;
}

/** Why two runs cannot be compared, or null: only runs of one workflow line up step by step. */
export function compareProblem(a: RunOf, b: RunOf): string | null {
  if (a.workflowId === b.workflowId) return null;
  return `A is a run of ${workflowName(a)} and B of ${workflowName(b)}: only two runs of the same workflow line up step by step.`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
