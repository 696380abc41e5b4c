import type { WorkflowIssue } from "../workflow/issues";
import type { JsonValue } from "../workflow/schema-basics";

/** A span of the workflow text: offsets `[start, end)` and the 1-based lines of its first and last character. */
export interface SourceRange {
  start: number;
  end: number;
  startLine: number;
  endLine: number;
}

/**
 * A list of steps: the top-level `steps` (`{}`), a foreach's `steps` (`{ parent }`) or a branch
 * of a parallel step (`{ parent, branch }`); `parent` is the container's node id.
 */
export interface StepList {
  parent?: string;
  branch?: string;
}

export const MODIFIERS = ["condition", "retry", "timeout", "manual_approval"] as const;
export type Modifier = (typeof MODIFIERS)[number];

export interface Badge {
  kind: Modifier | "trigger";
  /** Short text for the canvas, e.g. `retry ×3`, `timeout 10s`, `schedule 0 9 * * 1-5`. */
  label: string;
  /** The field (or trigger) in the text, to jump to. */
  range: SourceRange;
}

export interface CanvasNode {
  /**
   * The step's name, which the format keeps unique in the whole file, so the id survives
   * reordering, moving in and out of containers and unrelated edits. A step without a valid
   * name, or with a name an earlier step already took, gets its YAML path instead
   * (`steps[2].steps[0]`), which no valid name can equal.
   */
  id: string;
  name: string | undefined;
  /** As written; undefined when missing or not a string. */
  type: string | undefined;
  list: StepList;
  /** Position among the steps of its list. */
  index: number;
  /** The id of the innermost group holding it; undefined at the top level. */
  group: string | undefined;
  /** From the item's `-` (or a flow item's `{`) to the end of its value. */
  range: SourceRange;
  /** `range` with the comment lines that belong to the step: what a move or delete carries along. */
  block: SourceRange;
  badges: Badge[];
}

export interface CanvasGroup {
  /** A container step's group has the step's id; a branch group is `<parallel id>/<branch>`. */
  id: string;
  kind: "foreach" | "parallel" | "branch";
  /** The node id of the foreach or parallel step. */
  owner: string;
  /** The branch name, for kind "branch". */
  branch?: string;
  /** The group this one is drawn in: a branch's parallel group, or the group holding the owner step. */
  parent: string | undefined;
  /** Node ids in order; a parallel group holds branch groups instead, listed in `branches`. */
  children: string[];
  /** Branch group ids in order, for kind "parallel". */
  branches: string[];
  range: SourceRange;
}

/**
 * `sequence`: one step runs after the other in the same list; `enter`: a container runs the first
 * step of one of its lists; `exit`: the last step of a container's list hands its output back to
 * the container; `data`: the `to` step reads the `from` step through `steps.<name>`.
 */
export type EdgeKind = "sequence" | "enter" | "exit" | "data";

export interface CanvasEdge {
  id: string;
  kind: EdgeKind;
  from: string;
  to: string;
}

/** One `steps.<name>` in a template, a condition or an agent's templated field. */
export interface StepReference {
  /** The step name as written. */
  name: string;
  /** The node it resolves to; undefined when no step has that name. */
  target: string | undefined;
  /** The node whose field holds it; undefined outside steps (an agent's fields). */
  holder: string | undefined;
  /** YAML path of the string holding it, e.g. `steps[3].prompt`. */
  field: string;
  /** The `steps.<name>` text itself. */
  range: SourceRange;
}

export interface CanvasIssue extends WorkflowIssue {
  /** The innermost step the issue points into. */
  node: string | undefined;
  /** For a duplicate step name, the step that has the name first: the mistake is as much there. */
  other: string | undefined;
  /**
   * Set by the console on its last valid drawing only: the step after which the problem's lines start a new step,
   * which the drawing does not have.
   */
  after?: string;
}

export interface CanvasGraph {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  groups: CanvasGroup[];
  references: StepReference[];
  /** Names of the top-level `agents`, which an `agent` step must name. */
  agents: string[];
  /** Empty when the text parses and validates. */
  issues: CanvasIssue[];
}

/** A change in the terms of the text before it: replace `[from, to)` with `insert`. */
export interface TextEdit {
  from: number;
  to: number;
  insert: string;
}

/** A span of the text after an edit. */
export interface TextRange {
  from: number;
  to: number;
}

export interface CanvasWarning {
  message: string;
  /** In the new text. */
  range: SourceRange;
}

export interface EditSuccess {
  ok: true;
  text: string;
  /** Non-overlapping and sorted, in the old text's offsets: what an editor applies as one transaction. */
  edits: TextEdit[];
  /** Where the new text differs, in its own offsets; a deletion leaves an empty range. */
  changed: TextRange[];
  /** References left pointing at a step that no longer exists. */
  warnings: CanvasWarning[];
  /** The node the operation created, moved or renamed, for the canvas to select. */
  id?: string;
}

export interface EditFailure {
  ok: false;
  error: string;
  /** When the result would not validate: its problems. */
  issues: WorkflowIssue[];
}

export type EditResult = EditSuccess | EditFailure;

/** A list or a mapping as plain data, the value a field is set to. */
export type CollectionValue = readonly JsonValue[] | { readonly [key: string]: JsonValue };
