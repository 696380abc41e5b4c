import { findReferences } from "./references";
import { readSource, sourceRange, type Source } from "./source";
import { collectSteps, type StepTree } from "./steps";
import type { CanvasWarning, EditFailure, EditResult, TextEdit, TextRange } from "./types";
import { validated } from "./validation";
import { isUnknownStepIssue } from "../workflow/semantic";

/**
 * What an operation decided: the splices, the step to select, and the names it removed (whose references now dangle).
 */
export interface Plan {
  edits: TextEdit[];
  id?: string;
  removed?: readonly string[];
}

type Planner = (source: Source, tree: StepTree) => Plan | string;

function failure(error: string, issues: EditFailure["issues"] = []): EditFailure {
  return { ok: false, error, issues };
}

/** Applies non-overlapping edits in one pass; an insertion at the start of a deletion goes before it. */
export function applyEdits(
  text: string,
  edits: readonly TextEdit[],
): { text: string; edits: TextEdit[]; changed: TextRange[] } {
  const sorted = [...edits].sort((a, b) => a.from - b.from || a.to - a.from - (b.to - b.from));
  let out = "";
  let at = 0;
  const changed: TextRange[] = [];
  for (const edit of sorted) {
    if (edit.from < at) throw new Error(`overlapping edits at ${edit.from}`);
    out += text.slice(at, edit.from);
    const from = out.length;
    out += edit.insert;
    const last = changed[changed.length - 1];
    if (last && last.to === from) last.to = out.length;
    else changed.push({ from, to: out.length });
    at = edit.to;
  }
  return { text: out + text.slice(at), edits: sorted, changed };
}

function danglingWarnings(text: string, removed: readonly string[]): CanvasWarning[] {
  const source = readSource(text);
  const tree = collectSteps(source);
  const names = new Set(tree.steps.map((site) => site.name));
  return findReferences(source, tree)
    .filter((ref) => removed.includes(ref.name) && !names.has(ref.name))
    .map((ref) => ({
      message: `${ref.holder ? `step \`${ref.holder.id}\`` : "an agent"} still reads \`${text.slice(ref.start, ref.end)}\`, which no longer exists`,
      range: sourceRange(source, ref.start, ref.end),
    }));
}

/**
 * Runs a canvas operation: positions come from the parsed text, so text with YAML syntax errors
 * is refused; a workflow that validated must still validate afterwards, so the canvas can never
 * be the one that breaks a file.
 */
export function runOperation(text: string, planner: Planner): EditResult {
  const source = readSource(text);
  if (source.doc.errors.length > 0)
    return failure("the text has YAML syntax errors: fix them before editing on the canvas");
  const plan = planner(source, collectSteps(source));
  if (typeof plan === "string") return failure(plan);
  const applied = applyEdits(text, plan.edits);
  const after = validated(applied.text);
  // A deleted step that others read is deleted all the same: what reads it is then a problem at its own line, to fix
  // there.
  const onlyDangling =
    !after.ok && plan.removed !== undefined && after.errors.every((issue) => isUnknownStepIssue(issue, plan.removed));
  if (!after.ok && !onlyDangling) {
    if (validated(text).ok || readSource(applied.text).doc.errors.length > 0) {
      return failure(
        `the change would leave the workflow invalid: ${after.errors[0]?.message ?? "unknown problem"}`,
        after.errors,
      );
    }
  }
  return {
    ok: true,
    ...applied,
    warnings: plan.removed && plan.removed.length > 0 ? danglingWarnings(applied.text, plan.removed) : [],
    ...(plan.id === undefined ? {} : { id: plan.id }),
  };
}
