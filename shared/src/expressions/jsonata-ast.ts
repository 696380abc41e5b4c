/** A JSONata AST node, as far as the planners here look at it (JSONata does not type its AST). */
export interface AstNode {
  type: string;
  value?: unknown;
  lhs?: AstNode;
  rhs?: AstNode;
  steps?: AstNode[];
  expressions?: AstNode[];
  [field: string]: unknown;
}

/** Whether the node has no field but these: any other (a predicate, a group, a focus) changes what it means. */
export function onlyFields(node: AstNode, allowed: readonly string[]): boolean {
  return Object.keys(node).every((k) => allowed.includes(k));
}

/** The names of a bare path of names (`steps.fetch.output`); null for any other node. */
export function bareNames(node: AstNode): string[] | null {
  if (node.type !== "path" || !Array.isArray(node.steps) || !onlyFields(node, ["type", "steps", "position"]))
    return null;
  const names: string[] = [];
  for (const step of node.steps) {
    if (step.type !== "name" || typeof step.value !== "string" || !onlyFields(step, ["type", "value", "position"]))
      return null;
    names.push(step.value);
  }
  return names;
}

/** What parentheses around one expression hold; null when the node is not that. */
export function parenthesised(node: AstNode): AstNode | null {
  return node.type === "block" &&
    Array.isArray(node.expressions) &&
    node.expressions.length === 1 &&
    onlyFields(node, ["type", "expressions", "position"])
    ? node.expressions[0]!
    : null;
}
