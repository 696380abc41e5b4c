// The thread of an expression host (eval-host.mjs) that evaluates JSONata expressions, one at a
// time. The host terminates it at an expression's deadline, wherever it is stuck (a recursive
// lambda's loop, a single built-in call). Plain JS: it runs without tsx.
import { parentPort, workerData } from "node:worker_threads";
import { deserialize } from "node:v8";
import { compiledExpression } from "./compiled-expressions.mjs";

const { maxDepth, maxResultChars } = workerData;

/** JSONata functions are objects (a lambda holds its environment, a cycle): dropped, as JSON drops JS functions. */
function withoutFunctions(_key, value) {
  return value !== null &&
    typeof value === "object" &&
    (value._jsonata_lambda === true || value._jsonata_function === true)
    ? undefined
    : value;
}

/** A job: an expression to evaluate on its context, for its owner (whose many expressions push out its own). */
parentPort.on("message", async ({ expression, context, owner }) => {
  try {
    const value = await compiledExpression(expression, owner, maxDepth).evaluate(deserialize(context));
    // JSON text, parsed once by the service: the result is plain data (no functions, no JSONata
    // sequence markers), and its size is known before the service's main thread takes it in.
    const json = value === undefined ? undefined : JSON.stringify(value, withoutFunctions);
    if (json !== undefined && json.length > maxResultChars) {
      throw new Error(`its result is ${json.length} characters of JSON, more than the ${maxResultChars} allowed`);
    }
    parentPort.postMessage({ ok: true, json });
  } catch (err) {
    const e = err && typeof err === "object" ? err : { message: String(err) };
    parentPort.postMessage({ ok: false, message: String(e.message), position: e.position });
  }
});
parentPort.postMessage({ ready: true });
