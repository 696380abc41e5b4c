// What an expression host's thread (eval-thread.mjs) answers for a result, as JSON text; the console's expression
// preview answers the same in its Web Worker. Plain JS: the thread runs it without tsx.
import { compiledExpression } from "./compiled-expressions.mjs";

/** JSONata functions are objects (a lambda holds its environment, a cycle): dropped, as JSON drops JS functions. */
function withoutFunctions(_key, value) {
  return value !== null &&
    typeof value === "object" &&
    (value._jsonata_lambda === true || value._jsonata_function === true)
    ? undefined
    : value;
}

/**
 * `value` as JSON text, undefined for nothing: plain data (no functions, no JSONata sequence markers), its size known
 * before the thread that takes it in parses it. Throws past `maxResultChars` characters.
 */
export function resultJson(value, maxResultChars) {
  const json = value === undefined ? undefined : JSON.stringify(value, withoutFunctions);
  if (json !== undefined && json.length > maxResultChars) {
    throw new Error(`its result is ${json.length} characters of JSON, more than the ${maxResultChars} allowed`);
  }
  return json;
}

/** Evaluates `expression` on `context` as a host's thread does: its result's JSON text (resultJson). */
export async function evaluateToJson(expression, context, owner, { maxDepth, maxResultChars }) {
  return resultJson(await compiledExpression(expression, owner, maxDepth).evaluate(context), maxResultChars);
}
