import {
  ExpressionError,
  evaluateHere,
  holds,
  planFor,
  renderHere,
  type ContextNeeds,
  varyingCall,
  type ExpressionContext,
} from "@wf/shared/expressions/portable";
import { TEMPLATE_PART } from "@wf/shared/expressions/template-syntax";
import { glance } from "./glance";
import type { KnownItems, PreviewData } from "./preview-context";

/** One expression to preview, on the data previewData gave. */
export interface PreviewRequest extends PreviewData {
  expression: string;
  condition: boolean;
  /** The whole field holding the expression, rendered too when it is more than the expression (PreviewTarget). */
  field: string | null;
}

export type PreviewKind = "value" | "error" | "unknown" | "secret" | "timeout";

/** What one preview says: the value cut to a few lines, or why there is none. */
export interface PreviewLine {
  kind: PreviewKind;
  text: string;
}

export interface PreviewAnswer extends PreviewLine {
  /** What the whole field renders to, when it is more than the expression. */
  field?: PreviewLine;
  /** The names it read of a foreach's first item in the latest run: `item, steps.shape: item 0 of the latest run`. */
  fromItem?: string;
  /** The item it read as `item` (item 0 of the latest run), whole: the step panel shows it as a tree. */
  item?: ShownItem;
}

/** A foreach's item 0 as the preview and the step panel show it. */
export interface ShownItem {
  value: unknown;
  /** Why it may not be the run's item 0: said in the preview's box and the step panel alike. */
  mayDiffer?: string;
}

/** A few lines: the preview sits over the text being written. */
export const PREVIEW_LINES = 8;
const PREVIEW_LINE_CHARS = 100;
/** The owner the shared code's caches count a preview's expressions for: the worker is this person's alone. */
const OWNER = "preview";

export const SECRETS_NOT_PREVIEWED: PreviewLine = {
  kind: "secret",
  text: "It reads secrets, which are not previewed: the console never receives their values.",
};

/** The roots a run always gives: one missing from the context is not known here, rather than empty. */
const KNOWABLE = new Set(["vars", "steps", "execution", "item", "approval"]);

/** Why the expression is not evaluated here: it reads a secret, or a name whose value is not known; null otherwise. */
export function withheld(expression: string, context: Record<string, unknown>): PreviewLine | null {
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

/** The expressions of a value's templates. */
const templatesOf = (text: string) => [...text.matchAll(TEMPLATE_PART)].map((m) => m[1]!.trim());

/** Whether `expression` reads the name `root`, or its field `key` (or may: it reads the whole of either). */
function reads(expression: string, root: string, key?: string): boolean {
  try {
    const { needs } = planFor(expression, OWNER);
    if (needs === "all") return true;
    const need = needs.get(root);
    return need !== undefined && (key === undefined || need === "whole" || need.has(key));
  } catch {
    return false;
  }
}

/** `evaluate`'s result, shown; or the error a run would fail with. */
async function shownOrError(evaluate: () => Promise<unknown>): Promise<PreviewLine & { value?: unknown }> {
  try {
    const value = await evaluate();
    return {
      kind: "value",
      text: value === undefined ? "nothing" : glance(value, PREVIEW_LINES, PREVIEW_LINE_CHARS),
      value,
    };
  } catch (err) {
    return { kind: "error", text: err instanceof ExpressionError ? err.reason : String(err) };
  }
}

/** A foreach's first item as evaluated here, and what may have made it another than the run's: `$random()`. */
interface FirstItem {
  value: unknown;
  varies: string | null;
}

/**
 * The first of the items of the last of nested foreach steps (`levels`, outermost first) as the latest run had them:
 * its definition's list, or its template rendered on what the run rendered it on (in an inner foreach, with the outer
 * one's first item); none when they read what is not known here (secrets never are), fail, or hold no item.
 */
async function firstItem(levels: readonly KnownItems[], firstItems: FirstItems): Promise<FirstItem | null> {
  const known = levels.at(-1)!;
  const { items } = known;
  const templates = typeof items === "string" ? templatesOf(items) : [];
  const outer = templates.some((e) => reads(e, "item")) ? await firstItems.of(levels.slice(0, -1)) : null;
  const context = outer === null ? known.context : { ...known.context, item: outer.value };
  if (templates.some((expression) => withheld(expression, context) !== null)) return null;
  // `items` calling `$random()` may not give the run's again.
  const called = templates.map(varyingCall).find((name) => name !== null);
  const varies = called ?? outer?.varies ?? null;
  try {
    const list =
      typeof items === "string" ? await renderHere(items, context as unknown as ExpressionContext, OWNER) : items;
    return Array.isArray(list) && list.length > 0 ? { value: list[0], varies } : null;
  } catch {
    return null;
  }
}

/**
 * Item 0 of foreach steps' items, evaluated once per run, foreach and `items` text, then kept: the previews inside a
 * foreach and the step panel's `item` all read the same item 0 (of items calling `$random()` too) without evaluating
 * the items again. The latest run's only are kept, as the editor knows no other; they go with the worker when a
 * preview that took too long has it replaced.
 */
/** The item 0s a worker keeps: more than the foreach steps of a workflow, beside some edits of their `items`. */
export const KEPT_ITEMS = 64;

export class FirstItems {
  private run: string | null = null;
  private readonly kept = new Map<string, Promise<FirstItem | null>>();

  /** Item 0 of the last of `levels` (nested foreach steps, outermost first); null when not known. */
  of(levels: readonly KnownItems[]): Promise<FirstItem | null> {
    const known = levels.at(-1);
    if (known === undefined) return Promise.resolve(null);
    if (known.run !== this.run) {
      this.kept.clear();
      this.run = known.run;
    }
    // The outer levels are part of it: an inner foreach's items may read the outer one's item.
    const key = JSON.stringify(levels.map(({ path, items }) => [path, items]));
    const kept = this.kept.get(key) ?? firstItem(levels, this);
    // Last used last: each edit of an `items` text makes a key of its own, and only the most recent are kept.
    this.kept.delete(key);
    this.kept.set(key, kept);
    if (this.kept.size > KEPT_ITEMS) this.kept.delete(this.kept.keys().next().value!);
    return kept;
  }
}

/** What a field whose templates the expression is one of renders to, as a run renders it; or why it is not shown. */
async function fieldPreview(field: string, context: Record<string, unknown>): Promise<PreviewLine> {
  for (const expression of templatesOf(field)) {
    const held = withheld(expression, context);
    if (held) return held;
  }
  const { kind, text } = await shownOrError(() => renderHere(field, context as unknown as ExpressionContext, OWNER));
  return { kind, text };
}

/** The preview of the expression alone (with, for a `condition`, whether its step runs). */
async function expressionPreview(
  expression: string,
  condition: boolean,
  context: Record<string, unknown>,
): Promise<PreviewLine> {
  const held = withheld(expression, context);
  if (held) return held;
  // The names left out stay out: an expression reading them was withheld above, or reads the whole context.
  const { kind, text, value } = await shownOrError(() =>
    evaluateHere(expression, context as unknown as ExpressionContext, OWNER),
  );
  if (!condition || kind === "error") return { kind, text };
  return { kind, text: `${text}\n${holds(value) ? "→ the step runs" : "→ the step is skipped"}` };
}

/**
 * Item 0 as shown, with why it may not be the run's: a run keeps no items, and its `items` give another at each
 * evaluation. The preview's box and the step panel both say it.
 */
const shownItem = (item: FirstItem): ShownItem =>
  item.varies === null
    ? { value: item.value }
    : {
        value: item.value,
        mayDiffer: `item is evaluated again here from items calling ${item.varies}: it may not be the run's`,
      };

/**
 * The preview of one expression: its value on the known data, evaluated by the service's own code, cut to
 * PREVIEW_LINES lines; or its error, or why it is not evaluated. With it, what its whole field renders to, and what
 * it read of a foreach's first item in the latest run, taken from `firstItems`. Runs in the preview's worker, which is
 * stopped when it takes too long (preview-runner.ts).
 */
export async function previewOf(request: PreviewRequest, firstItems: FirstItems): Promise<PreviewAnswer> {
  const { expression, condition, field } = request;
  const templates = field === null ? [] : templatesOf(field);
  // Only what reads `item` waits for the items: a slow `items` template does not hold up the other previews.
  const all = [expression, ...templates];
  const item = all.some((e) => reads(e, "item")) ? await firstItems.of(request.items) : null;
  const context = item === null ? request.context : { ...request.context, item: item.value };
  const answer = await expressionPreview(expression, condition, context);
  const rendered = field === null ? null : await fieldPreview(field, context);
  // A field whose preview says what the expression's does (the same error, the same secret) is said once.
  const same = rendered !== null && rendered.kind === answer.kind && rendered.text === answer.text;
  const fromItem = [
    ...(item === null ? [] : ["item"]),
    ...request.itemSteps.filter((name) => all.some((e) => reads(e, "steps", name))).map((name) => `steps.${name}`),
  ];
  const shown = item === null ? null : shownItem(item);
  const differs = shown?.mayDiffer === undefined ? "" : `; ${shown.mayDiffer}`;
  return {
    ...answer,
    ...(rendered === null || same ? {} : { field: rendered }),
    ...(fromItem.length === 0 ? {} : { fromItem: `${fromItem.join(", ")}: item 0 of the latest run${differs}` }),
    ...(shown === null ? {} : { item: shown }),
  };
}
