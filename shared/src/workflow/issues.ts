import type { PathSegment } from "./locate";

/**
 * One problem in a workflow file. `line` and `column` are 1-based and point at the offending
 * node: the key of an unknown key, the value of a wrong value, the parent mapping of a missing key.
 */
export interface WorkflowIssue {
  path: string;
  line: number;
  column: number;
  message: string;
}

/** A problem before it is given a position: where in the data, and which node to point at. */
export interface Finding {
  path: PathSegment[];
  message: string;
  at: "key" | "value";
  /** Offset inside a string value, for a mistake in the middle of a template. */
  index?: number;
}

/** Compiler-style lines, `file:line:col  path: message`, one per issue. */
export function formatIssues(issues: readonly WorkflowIssue[], fileName = "workflow.yaml"): string {
  return issues
    .map((issue) => {
      const where = `${fileName}:${issue.line}:${issue.column}`;
      return issue.path === "" ? `${where}  ${issue.message}` : `${where}  ${issue.path}: ${issue.message}`;
    })
    .join("\n");
}
