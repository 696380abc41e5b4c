// Types of result-json.mjs, which is plain JavaScript: it runs in an expression host's thread, without tsx.

export function resultJson(value: unknown, maxResultChars: number): string | undefined;
export function evaluateToJson(
  expression: string,
  context: unknown,
  owner: string,
  limits: { maxDepth: number; maxResultChars: number },
): Promise<string | undefined>;
