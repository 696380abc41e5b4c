import { bareNames, onlyFields, parenthesised, type AstNode } from "./jsonata-ast";
import { readNamePath } from "./name-path";

/**
 * Comparisons of bare paths and scalar literals (`vars.n > 3`, `steps.check.output = "ok" and
 * vars.strict`), evaluated on the calling thread: conditions and conditional breakpoints are mostly
 * of this shape, and the pool would cost a round trip per step. Anything whose result JSONata would
 * reach otherwise (an array on the path, mixed types, an error) is left to the pool, so the answer is
 * always JSONata's (docs/sandbox.md#expression-hosts).
 */
export type InlineNode =
  | { kind: "path"; names: readonly string[] }
  | { kind: "literal"; value: string | number | boolean | null }
  | { kind: "compare"; op: "=" | "!=" | "<" | "<=" | ">" | ">="; lhs: InlineOperand; rhs: InlineOperand }
  | { kind: "logic"; op: "and" | "or"; lhs: InlineTest; rhs: InlineTest };
export type InlineOperand = Extract<InlineNode, { kind: "path" | "literal" }>;
export type InlineTest = Extract<InlineNode, { kind: "compare" | "logic" }>;

const COMPARE_OPS = new Set(["=", "!=", "<", "<=", ">", ">="]);
/** Deeper than any condition a person writes; keeps the walk bounded. */
const MAX_DEPTH = 16;

/** The inline form of an expression's AST, or null when it is not of that shape. */
export function inlineComparisonOf(ast: AstNode, depth = 0): InlineTest | null {
  if (depth > MAX_DEPTH) return null;
  const inner = parenthesised(ast);
  if (inner) return inlineComparisonOf(inner, depth + 1);
  if (ast.type !== "binary" || !ast.lhs || !ast.rhs) return null;
  const op = ast.value;
  if (op === "and" || op === "or") {
    const lhs = inlineComparisonOf(ast.lhs, depth + 1);
    const rhs = lhs && inlineComparisonOf(ast.rhs, depth + 1);
    return lhs && rhs ? { kind: "logic", op, lhs, rhs } : null;
  }
  if (typeof op !== "string" || !COMPARE_OPS.has(op)) return null;
  const lhs = operandOf(ast.lhs);
  const rhs = operandOf(ast.rhs);
  return lhs && rhs ? { kind: "compare", op: op as "=", lhs, rhs } : null;
}

function operandOf(node: AstNode): InlineOperand | null {
  const names = bareNames(node);
  if (names) return { kind: "path", names };
  if (
    (node.type === "string" || node.type === "number" || node.type === "value") &&
    onlyFields(node, ["type", "value", "position"])
  ) {
    const v = node.value;
    if (typeof v === "string" || typeof v === "boolean" || v === null || (typeof v === "number" && Number.isFinite(v)))
      return { kind: "literal", value: v };
  }
  return null;
}

type Scalar = string | number | boolean | null | undefined;

/** The value JSONata gives, or null: not decidable here (the pool evaluates it). */
export function evaluateInline(node: InlineTest, context: object): { value: boolean | undefined } | null {
  if (node.kind === "logic") {
    const lhs = evaluateInline(node.lhs, context);
    if (!lhs) return null;
    // JSONata's and/or take the boolean of each side, and skip the right one when the left decides.
    if (node.op === "and" && !lhs.value) return { value: false };
    if (node.op === "or" && lhs.value) return { value: true };
    const rhs = evaluateInline(node.rhs, context);
    return rhs ? { value: Boolean(rhs.value) } : null;
  }
  const lhs = operandValue(node.lhs, context);
  const rhs = operandValue(node.rhs, context);
  if (!lhs || !rhs) return null;
  const [l, r] = [lhs.value, rhs.value];
  if (node.op === "=" || node.op === "!=") {
    if (l === undefined || r === undefined) return { value: false };
    return { value: node.op === "=" ? l === r : l !== r };
  }
  if (l === undefined || r === undefined) return { value: undefined };
  // Ordering needs two numbers or two strings; JSONata raises an error otherwise, which the pool reports.
  if (!((typeof l === "number" && typeof r === "number") || (typeof l === "string" && typeof r === "string")))
    return null;
  switch (node.op) {
    case "<":
      return { value: l < r };
    case "<=":
      return { value: l <= r };
    case ">":
      return { value: l > r };
    case ">=":
      return { value: l >= r };
  }
}

function operandValue(node: InlineOperand, context: object): { value: Scalar } | null {
  if (node.kind === "literal") return { value: node.value };
  const read = readNamePath(context, node.names);
  if (!read) return null;
  const v = read.value;
  // Objects and arrays compare deeply in JSONata: left to it.
  if (
    v === undefined ||
    v === null ||
    typeof v === "string" ||
    typeof v === "boolean" ||
    (typeof v === "number" && Number.isFinite(v))
  )
    return { value: v };
  return null;
}
