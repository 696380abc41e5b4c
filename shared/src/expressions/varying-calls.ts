import jsonata from "jsonata";
import type { AstNode } from "./jsonata-ast";

/** JSONata's functions that may give another value at each call. */
const VARYING = new Set(["now", "millis", "random", "shuffle"]);

/** Every node of a JSONata AST, whatever field holds it (arguments, predicates, an object's pairs, a lambda's body). */
function* nodesOf(value: unknown): Generator<AstNode> {
  if (Array.isArray(value)) for (const item of value) yield* nodesOf(item);
  else if (value !== null && typeof value === "object") {
    const node = value as AstNode;
    if (typeof node.type === "string") yield node;
    for (const field of Object.values(node)) if (field !== null && typeof field === "object") yield* nodesOf(field);
  }
}

/** The names an expression binds itself (`$now := …`, `function($random) {…}`), which are no longer the built-ins. */
function boundNames(nodes: readonly AstNode[]): Set<string> {
  const bound = new Set<string>();
  for (const node of nodes) {
    if (node.type === "bind" && node.lhs?.type === "variable") bound.add(String(node.lhs.value));
    if (node.type === "lambda" && Array.isArray(node.arguments))
      for (const arg of node.arguments as AstNode[]) bound.add(String(arg.value));
  }
  return bound;
}

/**
 * The first of `$now`, `$millis`, `$random`, `$shuffle` that an expression calls or passes as a function (`$random()`,
 * `$map(xs, $random)`), read from JSONata's parse of it: never a string literal, an object's key or a field named like
 * one (`"$now"`, `` x.`$now` ``), nor a name the expression binds itself. The text `$eval` evaluates is read too when
 * it is written as a string; text made as it runs is not seen. Null when none is, or the expression does not parse.
 */
export function varyingCall(expression: string): string | null {
  let nodes: AstNode[];
  try {
    nodes = [...nodesOf(jsonata(expression).ast())];
  } catch {
    return null;
  }
  const bound = boundNames(nodes);
  for (const node of nodes) {
    if (node.type !== "variable" || typeof node.value !== "string" || bound.has(node.value)) continue;
    if (VARYING.has(node.value)) return `$${node.value}()`;
  }
  for (const node of nodes) {
    const [text] = Array.isArray(node.arguments) ? (node.arguments as AstNode[]) : [];
    const procedure = node.procedure as AstNode | undefined;
    const callsEval = node.type === "function" && procedure?.type === "variable" && procedure.value === "eval";
    if (callsEval && !bound.has("eval") && text?.type === "string" && typeof text.value === "string") {
      const inner = varyingCall(text.value);
      if (inner !== null) return inner;
    }
  }
  return null;
}
