import { isCollection, type Node, type Pair } from "yaml";
import { runOperation, type Plan } from "./edits";
import { pairEnd } from "./extent";
import { setPlan } from "./op-fields";
import { CLI_STARTER, STARTERS, starterCode } from "./palette";
import { scalarText } from "./scalars";
import type { Source } from "./source";
import { pairOf, stringField, type StepTree } from "./steps";
import { column, lineEnd } from "./text";
import type { EditResult, TextEdit } from "./types";

export interface SetLanguageOp {
  /** A code step. */
  id: string;
  language: string;
}

type ScriptLanguage = keyof typeof STARTERS;

function isScriptLanguage(language: string | undefined): language is ScriptLanguage {
  return language !== undefined && Object.hasOwn(STARTERS, language);
}

/** The key a language's program is written under: a `cli` step's argv, every other language's script. */
function programKey(language: string): "command" | "code" {
  return language === "cli" ? "command" : "code";
}

/** Whether a value is the language's starter as a new step has it, so that no one wrote it. */
function isStarter(language: string, value: unknown): boolean {
  if (language === "cli") return JSON.stringify(value) === JSON.stringify(CLI_STARTER);
  return isScriptLanguage(language) && typeof value === "string" && value.trim() === STARTERS[language];
}

/**
 * The starter of `language` in place of the pair holding the other language's (a script for an argv, or the reverse):
 * from its key to the end of its value, as setField rewrites a value; the lines around it stay.
 */
function programEdit(text: string, held: Pair, language: "cli" | ScriptLanguage, inFlow: boolean): TextEdit {
  const from = (held.key as Node).range?.[0] ?? 0;
  let to = isCollection(held.value) && !held.value.flow ? lineEnd(text, pairEnd(held)) : pairEnd(held);
  if (text[to - 1] === "\n") to--;
  const value =
    language === "cli"
      ? `[${CLI_STARTER.join(", ")}]`
      : scalarText(starterCode(language, inFlow), column(text, from), inFlow);
  return { from, to, insert: `${programKey(language)}: ${value}` };
}

function setLanguagePlan(source: Source, tree: StepTree, op: SetLanguageOp): Plan | string {
  const set = setPlan(source, tree, { id: op.id, key: "language", value: op.language });
  if (typeof set === "string") return set;
  const site = tree.byId.get(op.id);
  const was = site && stringField(site.map, "language");
  const held = site && was !== undefined ? pairOf(site.map, programKey(was)) : undefined;
  const value: unknown = (held?.value as Node | null | undefined)?.toJSON();
  const target = op.language;
  if (!site || was === undefined || was === target || !held || !isStarter(was, value)) return set;
  if (target !== "cli" && !isScriptLanguage(target)) return set;
  if (programKey(was) === programKey(target) && isScriptLanguage(target)) {
    // The script's own scalar is rewritten, in its style: a block scalar stays one.
    const flowLike = typeof value === "string" && !value.endsWith("\n");
    const code = setPlan(source, tree, { id: op.id, key: "code", value: starterCode(target, flowLike) });
    return typeof code === "string" ? set : { edits: [...set.edits, ...code.edits], id: site.id };
  }
  return { edits: [...set.edits, programEdit(source.text, held, target, site.map.flow === true)], id: site.id };
}

/**
 * Sets a code step's `language`. A program still the old language's starter, as a new step has it, becomes the new
 * language's, which runs there: Python's `print("hello")` fails in JavaScript, and a `cli` step takes an argv in
 * `command` instead of a script in `code`. A program someone wrote stays as it is.
 */
export function setLanguage(text: string, op: SetLanguageOp): EditResult {
  return runOperation(text, (source, tree) => setLanguagePlan(source, tree, op));
}
