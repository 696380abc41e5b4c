import jsonata from "jsonata";

/** A problem in a template string; `index` is the offset of its `{{` inside that string. */
export interface ExpressionProblem {
  index: number;
  message: string;
}

/** JSONata's own complaint about `expression`, or undefined when it compiles. */
export function compileError(expression: string): string | undefined {
  try {
    jsonata(expression);
    return undefined;
  } catch (err) {
    // JSONata throws plain objects ({ code, position, token, message }), not Error instances.
    const message = (err as { message?: unknown } | null)?.message;
    return typeof message === "string" ? message : String(err);
  }
}

/**
 * Syntax problems of every `{{ … }}` template in `text` (text without templates has none).
 * A template ends at the first `}}`, as in the renderer (@wf/shared/expressions), so an
 * expression that itself contains `}}` is reported here rather than failing at run time.
 */
export function templateProblems(text: string): ExpressionProblem[] {
  const problems: ExpressionProblem[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf("{{", from);
    if (open < 0) break;
    const close = text.indexOf("}}", open + 2);
    if (close < 0) {
      problems.push({ index: open, message: "`{{` is never closed: add `}}` after the expression" });
      break;
    }
    const expression = text.slice(open + 2, close).trim();
    if (expression === "") {
      problems.push({ index: open, message: "empty `{{ }}`: write an expression inside or remove the braces" });
    } else {
      const error = compileError(expression);
      if (error !== undefined)
        problems.push({ index: open, message: `invalid expression \`${expression}\`: ${error}` });
    }
    from = close + 2;
  }
  return problems;
}

/** What is wrong with a `condition`, which is a bare JSONata expression rather than a template. */
export function conditionProblem(text: string): string | undefined {
  if (/^\s*\{\{[\s\S]*\}\}\s*$/.test(text)) {
    return "`condition` is a bare JSONata expression: remove the `{{ }}` around it";
  }
  const error = compileError(text);
  return error === undefined ? undefined : `invalid condition \`${text.trim()}\`: ${error}`;
}

/** True when `text` is one whole `{{ … }}` template, which the renderer turns into a typed value. */
export function isWholeTemplate(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith("{{") && trimmed.indexOf("}}") === trimmed.length - 2 && trimmed.lastIndexOf("{{") === 0;
}
