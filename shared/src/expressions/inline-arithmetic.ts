import { bareNames, onlyFields, parenthesised, type AstNode } from "./jsonata-ast";
import { readNamePath } from "./name-path";

/**
 * Arithmetic and joins of bare paths and literals (`steps.count.output + 1`, `vars.price * 1.2`,
 * `"Hello " & vars.name`), evaluated on the calling thread: templates that pass a value on with a
 * small change are mostly of this shape, and the pool would cost a round trip per step. A value
 * JSONata would treat otherwise (an object, an array, a number it would format or refuse) leaves the
 * whole expression to the pool, so the answer is always JSONata's (docs/sandbox.md#expression-hosts).
 */
export type InlineCalc =
  | { kind: "path"; names: readonly string[] }
  | { kind: "literal"; value: string | number }
  | { kind: "math"; op: "+" | "-" | "*" | "/" | "%"; lhs: InlineCalc; rhs: InlineCalc }
  | { kind: "join"; lhs: InlineCalc; rhs: InlineCalc };

const MATH_OPS = new Set(["+", "-", "*", "/", "%"]);
/** Deeper than any template a person writes; keeps the walk bounded. */
const MAX_DEPTH = 16;
/**
 * JSONata writes a number into a string at 15 significant digits: integers below this come out
 * as JavaScript writes them; any other number is left to it.
 */
const PLAIN_INTEGER_BELOW = 1e15;

/** The inline form of an expression's AST when it is an operation of that shape; null otherwise. */
export function inlineCalcOf(ast: AstNode): InlineCalc | null {
  const calc = calcOf(ast, 0);
  return calc && (calc.kind === "math" || calc.kind === "join") ? calc : null;
}

function calcOf(node: AstNode, depth: number): InlineCalc | null {
  if (depth > MAX_DEPTH) return null;
  const inner = parenthesised(node);
  if (inner) return calcOf(inner, depth + 1);
  const names = bareNames(node);
  if (names) return { kind: "path", names };
  if ((node.type === "string" || node.type === "number") && onlyFields(node, ["type", "value", "position"])) {
    const v = node.value;
    return typeof v === "string" || (typeof v === "number" && Number.isFinite(v))
      ? { kind: "literal", value: v }
      : null;
  }
  if (
    node.type !== "binary" ||
    !node.lhs ||
    !node.rhs ||
    !onlyFields(node, ["type", "value", "lhs", "rhs", "position"])
  )
    return null;
  const lhs = calcOf(node.lhs, depth + 1);
  const rhs = lhs && calcOf(node.rhs, depth + 1);
  if (!lhs || !rhs) return null;
  if (node.value === "&") return { kind: "join", lhs, rhs };
  if (typeof node.value === "string" && MATH_OPS.has(node.value))
    return { kind: "math", op: node.value as "+", lhs, rhs };
  return null;
}

/** The value JSONata gives, or null: not decided here (the pool evaluates it, errors included). */
export function evaluateCalc(node: InlineCalc, context: object): { value: unknown } | null {
  switch (node.kind) {
    case "literal":
      return { value: node.value };
    case "path":
      return readNamePath(context, node.names);
    case "math": {
      const lhs = evaluateCalc(node.lhs, context);
      const rhs = lhs && evaluateCalc(node.rhs, context);
      if (!lhs || !rhs || !numberOrNothing(lhs.value) || !numberOrNothing(rhs.value)) return null;
      if (lhs.value === undefined || rhs.value === undefined) return { value: undefined };
      const value = math(node.op, lhs.value as number, rhs.value as number);
      // Out of range (1/0, an overflow): JSONata's own error.
      return Number.isFinite(value) ? { value } : null;
    }
    case "join": {
      const lhs = evaluateCalc(node.lhs, context);
      const rhs = lhs && evaluateCalc(node.rhs, context);
      const l = lhs && asText(lhs.value);
      const r = rhs && asText(rhs.value);
      return l === null || r === null ? null : { value: l + r };
    }
  }
}

function numberOrNothing(v: unknown): boolean {
  return v === undefined || (typeof v === "number" && Number.isFinite(v));
}

function math(op: "+" | "-" | "*" | "/" | "%", l: number, r: number): number {
  switch (op) {
    case "+":
      return l + r;
    case "-":
      return l - r;
    case "*":
      return l * r;
    case "/":
      return l / r;
    case "%":
      return l % r;
  }
}

/** What `&` makes of a value (JSONata's $string), where that is plain; null for the pool. */
function asText(v: unknown): string | null {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "boolean" || v === null) return String(v);
  if (typeof v === "number" && Number.isInteger(v) && Math.abs(v) < PLAIN_INTEGER_BELOW) return String(v);
  return null;
}
