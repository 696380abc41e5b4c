// Evaluates JSONata expressions that define functions (the only way to loop without end) off
// the main thread, so the caller can terminate a runaway one. Plain JS: it runs without tsx.
import { parentPort } from "node:worker_threads";
import jsonata from "jsonata";

parentPort.on("message", async ({ id, expression, context }) => {
  try {
    const value = await jsonata(expression).evaluate(context);
    parentPort.postMessage({ id, ok: true, value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) });
  } catch (err) {
    const e = err && typeof err === "object" ? err : { message: String(err) };
    parentPort.postMessage({ id, ok: false, message: e.message, position: e.position });
  }
});
