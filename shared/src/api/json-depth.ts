/**
 * How deep objects and arrays may nest in a JSON body (the body itself is level 1). JSON.parse
 * copes with any depth, but what handles a value later (serialising it into a command, walking
 * it) recurses, and a few thousand levels exhaust the stack: such a body is a 400, not a 500.
 */
export const MAX_JSON_DEPTH = 64;

interface Node {
  value: object;
  depth: number;
  key: string | number;
  parent: Node | null;
}

/**
 * The path (keys from the body down) to the first object or array nested deeper than
 * MAX_JSON_DEPTH, or null when there is none. Walks without recursion: that is the point.
 */
export function tooDeepAt(body: unknown): (string | number)[] | null {
  if (body === null || typeof body !== "object") return null;
  const stack: Node[] = [{ value: body, depth: 1, key: "", parent: null }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const entries: Iterable<[string | number, unknown]> = Array.isArray(node.value)
      ? node.value.entries()
      : Object.entries(node.value);
    for (const [key, value] of entries) {
      if (value === null || typeof value !== "object") continue;
      const child: Node = { value, depth: node.depth + 1, key, parent: node };
      if (child.depth > MAX_JSON_DEPTH) return pathOf(child);
      stack.push(child);
    }
  }
  return null;
}

function pathOf(node: Node): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let n: Node | null = node; n?.parent; n = n.parent) keys.unshift(n.key);
  return keys;
}
