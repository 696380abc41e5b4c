import type { Completion, CompletionContext, CompletionResult } from "@codemirror/autocomplete";
import type { SchemaNav } from "./schema-nav";
import { expressionNamesAt } from "./expression-names";
import { expressionScopeAt } from "./expression-scope";
import { expressionBefore, outputFieldsAt } from "./output-paths";
import type { OutputsAt } from "./preview-context";
import { contextAt } from "./yaml-context";

/** Keys whose values are a short list: choosing one opens the list of its values at once. */
const offersValues = new WeakSet<Completion>();

/** For `autocompletion({ activateOnCompletion })`. */
export const reopensAfter = (completion: Completion): boolean => offersValues.has(completion);

/**
 * Completion from the workflow format's JSON Schema: the keys valid where the cursor is (top-level
 * keys, a step's keys by its `type`, a modifier's keys), and the values of keys that list them.
 */
export function workflowCompletions(nav: SchemaNav) {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const lines = context.state.doc.toString().split("\n");
    const at = contextAt(lines, line.number - 1, context.pos - line.from);
    if (!at) return null;
    // A new line is not a question: keys are offered once a letter is typed, or on Ctrl+Space.
    if (at.kind === "key" && at.word === "" && !context.explicit) return null;

    if (at.kind === "value") {
      const options = nav.values(at.path, at.values, at.key!).map((option): Completion => ({
        label: option.value,
        type: "enum",
        ...(option.description ? { info: option.description } : {}),
      }));
      return options.length === 0 ? null : { from: line.from + at.from, options, validFor: /^[\w$.-]*$/ };
    }

    const childIndent = " ".repeat(at.indent + 2);
    const options = nav
      .keys(at.path, at.values)
      .filter((key) => !(key.name in at.values))
      .map((key): Completion => {
        const shape = nav.shapeOf(key.schema);
        const text =
          shape === "mapping"
            ? `${key.name}:\n${childIndent}`
            : shape === "list"
              ? `${key.name}:\n${childIndent}- `
              : `${key.name}: `;
        const completion: Completion = {
          label: key.name,
          type: "property",
          detail: nav.describe(key.schema),
          ...(key.schema.description ? { info: key.schema.description } : {}),
          apply: text,
          boost: key.required ? 1 : 0,
        };
        if (shape === "scalar" && nav.values(at.path, at.values, key.name).length > 0) offersValues.add(completion);
        return completion;
      });
    return options.length === 0 ? null : { from: line.from + at.from, options, validFor: /^[\w$.-]*$/ };
  };
}

/**
 * Completion of the fields of a step's known output (the latest run's, or a step test's; in a foreach, item 0's run of
 * a step of its item) after `steps.<name>.output.` inside `{{ … }}`, for a step that runs before the cursor's (in an
 * agent's text, before every step using the agent). `known` is asked at each completion: outputs arrive later.
 */
export function outputCompletions(known: OutputsAt) {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    // Only inside an expression is the workflow read for what the cursor's step can read.
    if (expressionBefore(before) === null) return null;
    const at = outputFieldsAt(before, known(context.state.doc.toString(), context.pos).outputs);
    if (!at) return null;
    return {
      from: context.pos - at.word.length,
      options: at.options.map((o): Completion => ({
        label: o.label,
        apply: o.apply,
        detail: o.detail,
        type: "property",
      })),
      validFor: /^[\w`]*$/,
    };
  };
}

/**
 * Completion of the names an expression reads, inside `{{ … }}` or a `condition`: its roots (`vars`, `steps`, `item`
 * in a foreach…), the variables, the steps that run before it, a step's result fields, the execution's fields, the
 * owner's secrets (`secretNames`, asked at each completion: they arrive later) and JSONata's `$` functions.
 */
export function expressionCompletions(secretNames: () => readonly string[]) {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    const scope = () => expressionScopeAt(context.state.doc.toString(), context.pos);
    const at = expressionNamesAt(before, scope, secretNames(), context.explicit);
    if (!at) return null;
    return {
      from: line.from + at.from,
      options: at.options.map((o): Completion => ({
        label: o.label,
        apply: o.apply,
        type: o.label.startsWith("$") ? "function" : "variable",
        ...(o.detail ? { detail: o.detail } : {}),
        ...(o.info ? { info: o.info } : {}),
      })),
      validFor: /^[\w$`]*$/,
    };
  };
}
