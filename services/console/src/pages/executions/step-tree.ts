import type { ConsoleExecutionStatus, StepStatus, StepView } from "../../api/types";

/** A step of the workflow, at the path its execution records it under. */
export interface StepNode {
  kind: "step";
  key: string;
  path: string;
  name: string;
  type: string;
  /** Only a top-level step can be rerun from. */
  topLevel: boolean;
  children: TreeNode[];
}

/** A foreach item or a parallel branch: no step of its own, a heading for the steps in it. */
export interface GroupNode {
  kind: "item" | "branch";
  key: string;
  label: string;
  children: TreeNode[];
}

export type TreeNode = StepNode | GroupNode;

interface DefinedStep {
  name: string;
  type: string;
  steps: DefinedStep[];
  branches: [string, DefinedStep[]][];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The steps of an execution's definition, read defensively: it is the workflow as stored, typed as unknown by the API.
 */
function definedSteps(value: unknown): DefinedStep[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((s): DefinedStep[] => {
    if (!isRecord(s) || typeof s.name !== "string") return [];
    const branches = isRecord(s.branches)
      ? Object.entries(s.branches).map(([b, list]): [string, DefinedStep[]] => [b, definedSteps(list)])
      : [];
    return [{ name: s.name, type: typeof s.type === "string" ? s.type : "", steps: definedSteps(s.steps), branches }];
  });
}

/** The item indexes a foreach at `path` has records for, in order (`path[2].name` is item 2). */
function itemIndexes(path: string, recorded: string[]): number[] {
  const found = new Set<number>();
  const prefix = `${path}[`;
  for (const p of recorded) {
    if (!p.startsWith(prefix)) continue;
    const m = /^(\d+)\]\./.exec(p.slice(prefix.length));
    if (m) found.add(Number(m[1]));
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * The steps as the workflow nests them, each at its recorded path: a foreach's steps under each
 * item it ran (`loop[2].name`), a parallel's under each branch (branch steps are recorded beside
 * the parallel, with their own names). A recorded path the definition does not explain is listed
 * at the end, so that nothing the run recorded is hidden.
 */
export function buildStepTree(definition: unknown, steps: Record<string, StepView>): TreeNode[] {
  const recorded = Object.keys(steps);
  const placed = new Set<string>();
  const build = (list: DefinedStep[], prefix: string, topLevel: boolean): TreeNode[] =>
    list.map((s) => {
      const path = `${prefix}${s.name}`;
      placed.add(path);
      const node: StepNode = { kind: "step", key: path, path, name: s.name, type: s.type, topLevel, children: [] };
      if (s.type === "foreach") {
        node.children = itemIndexes(path, recorded).map((i) => ({
          kind: "item",
          key: `${path}[${i}]`,
          label: `item ${i}`,
          children: build(s.steps, `${path}[${i}].`, false),
        }));
      } else if (s.type === "parallel") {
        node.children = s.branches.map(([branch, inner]) => ({
          kind: "branch",
          key: `${path}/${branch}`,
          label: `branch ${branch}`,
          children: build(inner, prefix, false),
        }));
      }
      return node;
    });
  const tree = build(definedSteps(isRecord(definition) ? definition.steps : undefined), "", true);
  for (const path of recorded)
    if (!placed.has(path))
      tree.push({ kind: "step", key: path, path, name: path, type: "", topLevel: false, children: [] });
  return tree;
}

/** The top-level step names, in order: what a rerun may start from. */
export function topLevelSteps(tree: TreeNode[]): string[] {
  return tree.flatMap((n) => (n.kind === "step" && n.topLevel ? [n.path] : []));
}

/** Every step path the definition names, `loop[*].name` for a foreach's steps: what a breakpoint may name. */
export function breakpointPaths(definition: unknown): string[] {
  const out: string[] = [];
  const walk = (list: DefinedStep[], prefix: string) => {
    for (const s of list) {
      out.push(`${prefix}${s.name}`);
      if (s.type === "foreach") walk(s.steps, `${prefix}${s.name}[*].`);
      for (const [, inner] of s.branches) walk(inner, prefix);
    }
  };
  walk(definedSteps(isRecord(definition) ? definition.steps : undefined), "");
  return out;
}

const ORDER: StepStatus[] = ["FAILED", "RUNNING", "AWAITING_APPROVAL", "REJECTED", "EXPIRED", "CANCELLED", "PENDING"];

/**
 * Several steps' statuses as one: the most telling (a failure, else what still runs), else completed; null for none.
 */
export function combinedStatus(seen: ReadonlySet<StepStatus>): StepStatus | null {
  if (seen.size === 0) return null;
  if ([...seen].every((s) => s === "SKIPPED")) return "SKIPPED";
  return ORDER.find((s) => seen.has(s)) ?? "COMPLETED";
}

/** A group's status, from the steps in it. */
export function groupStatus(node: TreeNode, steps: Record<string, StepView>): StepStatus | null {
  const seen = new Set<StepStatus>();
  const collect = (n: TreeNode) => {
    if (n.kind === "step") {
      const s = steps[n.path]?.status;
      if (s) seen.add(s);
    }
    n.children.forEach(collect);
  };
  collect(node);
  return combinedStatus(seen);
}

/** What a step with no record shows: cancelled once its execution was (it will never run), else pending. */
export function unreachedStatus(execution: ConsoleExecutionStatus): StepStatus {
  return execution === "CANCELLED" ? "CANCELLED" : "PENDING";
}

/** How long a step took, or has taken so far while it runs. */
export function stepDuration(st: StepView | undefined, now: number): number | null {
  if (!st) return null;
  if (st.duration !== null) return st.duration;
  return st.status === "RUNNING" && st.startedAt !== null ? now - st.startedAt : null;
}
