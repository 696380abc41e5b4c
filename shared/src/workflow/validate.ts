import type { Plan } from "../auth/plans";
import { LineCounter, isScalar, parseDocument, type Document } from "yaml";
import type { Finding, WorkflowIssue } from "./issues";
import { formatPath, locate, offsetInScalar, pathAtOffset, pointedNode, type PathSegment } from "./locate";
import { WorkflowSchema, type Workflow } from "./schema";
import { semanticFindings } from "./semantic";
import { findingsFromZod } from "./zod-issues";

export type ValidationResult =
  { ok: true; workflow: Workflow; yaml: Document.Parsed } | { ok: false; errors: WorkflowIssue[] };

/** Options shared by every parse of workflow text, so edits re-parse the way the first parse did. */
export const YAML_OPTIONS = { prettyErrors: false, merge: true } as const;

const YAML_MESSAGES: Record<string, string> = {
  DUPLICATE_KEY: "duplicate key: a key may appear only once in a mapping; remove or rename one",
  TAB_AS_INDENT: "tabs are not allowed as indentation in YAML: indent with spaces",
};

function position(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line: Math.max(line, 1), column: Math.max(col, 1) };
}

function sortIssues(issues: WorkflowIssue[]): WorkflowIssue[] {
  const seen = new Set<string>();
  return issues
    .filter((issue) => {
      const key = `${issue.line}:${issue.column}:${issue.path}:${issue.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

function syntaxIssues(doc: Document.Parsed, lineCounter: LineCounter): WorkflowIssue[] {
  return doc.errors.map((error) => ({
    path: formatPath(pathAtOffset(doc, error.pos[0])),
    ...position(lineCounter, error.pos[0]),
    message: `YAML syntax error: ${YAML_MESSAGES[error.code] ?? error.message}`,
  }));
}

/** Where a finding points, and where the node it is about ends. */
function place(doc: Document.Parsed, text: string, finding: Finding): { offset: number; end: number } {
  const located = locate(doc, finding.path);
  const node = pointedNode(located, finding.at);
  const [start, end] = node?.range ?? [0, text.length];
  if (finding.index !== undefined && located.found && isScalar(located.value)) {
    return { offset: offsetInScalar(located.value, text, finding.index), end };
  }
  return { offset: start, end };
}

/** What a validation knows of the workflow's owner, where it is saved for one. */
export interface OwnerBounds {
  /** The owner's plan: its code steps' timeouts are checked against it (code-timeout-bound.ts). */
  plan?: Plan;
}

/**
 * Parses and validates workflow text. On failure every problem is reported at once, each with
 * the line and column of the node to fix.
 */
export function validateWorkflowText(text: string, owner: OwnerBounds = {}): ValidationResult {
  return workflowTextValidation(text)(owner);
}

/**
 * `text` parsed once, to be validated for an owner's bounds each time it is asked: a file is checked on its own first,
 * then for its owner's plan once the store names it (`wf workflow import`, `wf rerun --file`).
 */
export function workflowTextValidation(text: string): (owner?: OwnerBounds) => ValidationResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  return (owner = {}) => validateParsedWorkflow(text, doc, lineCounter, owner);
}

/**
 * `validateWorkflowText` of a text its caller has parsed already, with YAML_OPTIONS and
 * `lineCounter` (the canvas parses each text once, for its picture and for this): the parse is
 * most of the cost of validating a long workflow.
 */
export function validateParsedWorkflow(
  text: string,
  doc: Document.Parsed,
  lineCounter: LineCounter,
  owner: OwnerBounds = {},
): ValidationResult {
  const syntax = syntaxIssues(doc, lineCounter);
  if (doc.contents === null) {
    const empty = {
      path: "",
      line: 1,
      column: 1,
      message: "the file is empty: a workflow needs at least `name` and `steps`",
    };
    return { ok: false, errors: syntax.length > 0 ? sortIssues(syntax) : [empty] };
  }

  let data: unknown;
  try {
    data = doc.toJS();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      errors: sortIssues([...syntax, { path: "", line: 1, column: 1, message: `YAML could not be read: ${message}` }]),
    };
  }

  const parsed = WorkflowSchema.safeParse(data);
  const lineOf = (path: PathSegment[]): number => {
    const node = pointedNode(locate(doc, path), "value");
    return position(lineCounter, node?.range?.[0] ?? 0).line;
  };
  const findings = [
    ...(parsed.success ? [] : findingsFromZod(parsed.error, data, WorkflowSchema)),
    ...semanticFindings(data, lineOf, owner.plan),
  ];
  if (parsed.success && findings.length === 0 && syntax.length === 0) {
    return { ok: true, workflow: parsed.data, yaml: doc };
  }
  // After a syntax error the structure is the parser's guess, and a mapping that ends right
  // where the broken line starts may have lost keys to it: only findings about nodes that end
  // before the line of the first syntax error are sure to be real.
  const firstError = Math.min(...doc.errors.map((e) => e.pos[0]), text.length + 1);
  const trustedEnd = text.lastIndexOf("\n", firstError - 1) + 1;
  const errors = findings.flatMap((finding) => {
    const { offset, end } = place(doc, text, finding);
    if (syntax.length > 0 && end >= trustedEnd) return [];
    return [{ path: formatPath(finding.path), ...position(lineCounter, offset), message: finding.message }];
  });
  return { ok: false, errors: sortIssues([...syntax, ...errors]) };
}
