import {
  ExpressionError,
  evaluateHere,
  holds,
  planFor,
  type ContextNeeds,
  type ExpressionContext,
} from "@wf/shared/expressions/portable";
import { glance } from "./glance";

/** One expression to preview, on the context previewContext made. */
export interface PreviewRequest {
  expression: string;
  condition: boolean;
  context: Record<string, unknown>;
}

export type PreviewKind = "value" | "error" | "unknown" | "secret" | "timeout";

export interface PreviewAnswer {
  kind: PreviewKind;
  /** What the preview says: the value cut to a few lines, or why there is none. */
  text: string;
}

/** A few lines: the preview sits over the text being written. */
export const PREVIEW_LINES = 8;
const PREVIEW_LINE_CHARS = 100;
/** The owner the shared code's caches count a preview's expressions for: the worker is this person's alone. */
const OWNER = "preview";

export const SECRETS_NOT_PREVIEWED: PreviewAnswer = {
  kind: "secret",
  text: "It reads secrets, which are not previewed: the console never receives their values.",
};

/** The roots a run always gives: one missing from the context is not known here, rather than empty. */
const KNOWABLE = new Set(["vars", "steps", "execution", "item", "approval"]);

/** Why the expression is not evaluated here: it reads a secret, or a name whose value is not known; null otherwise. */
export function withheld(expression: string, context: Record<string, unknown>): PreviewAnswer | null {
  let needs: ContextNeeds;
  try {
    needs = planFor(expression, OWNER).needs;
  } catch {
    // A syntax error: the evaluation says it, as a run would.
    return null;
  }
  // Reading the whole context (`$$`, `$lookup($, …)`): the text is all there is to go by.
  if (needs === "all") return /\bsecrets\b/.test(expression) ? SECRETS_NOT_PREVIEWED : null;
  if (needs.has("secrets")) return SECRETS_NOT_PREVIEWED;
  for (const [root, need] of needs) {
    if (!KNOWABLE.has(root)) continue;
    const first = need === "whole" ? undefined : [...need][0];
    const value = context[root];
    if (!Object.hasOwn(context, root))
      return { kind: "unknown", text: `${first === undefined ? root : `${root}.${first}`} has no known value` };
    if (need === "whole" || (root !== "steps" && root !== "vars") || value === null || typeof value !== "object")
      continue;
    for (const key of need)
      if (!Object.hasOwn(value, key))
        return {
          kind: "unknown",
          text: root === "steps" ? `steps.${key} has no known output` : `vars.${key} has no known value`,
        };
  }
  return null;
}

/**
 * The preview of one expression: its value on the known data, evaluated by the service's own code, cut to
 * PREVIEW_LINES lines; or its error, or why it is not evaluated. Runs in the preview's worker, which is stopped when it
 * takes too long (preview-runner.ts).
 */
export async function previewOf({ expression, condition, context }: PreviewRequest): Promise<PreviewAnswer> {
  const held = withheld(expression, context);
  if (held) return held;
  let value: unknown;
  try {
    // The names left out stay out: an expression reading them was withheld above, or reads the whole context.
    value = await evaluateHere(expression, context as unknown as ExpressionContext, OWNER);
  } catch (err) {
    return { kind: "error", text: err instanceof ExpressionError ? err.reason : String(err) };
  }
  const shown = value === undefined ? "nothing" : glance(value, PREVIEW_LINES, PREVIEW_LINE_CHARS);
  if (!condition) return { kind: "value", text: shown };
  return { kind: "value", text: `${shown}\n${holds(value) ? "→ the step runs" : "→ the step is skipped"}` };
}
