// The thread of an expression host (eval-host.mjs) that evaluates JSONata expressions, and checks answers by steps'
// `output_schema`s (output-schemas.mjs), one at a time. The host terminates it at a job's deadline, wherever it is
// stuck (a recursive lambda's loop, a single built-in call, a schema's compile). Plain JS: it runs without tsx.
import { parentPort, workerData } from "node:worker_threads";
import { deserialize } from "node:v8";
import { compiledExpression } from "./compiled-expressions.mjs";
import { resultJson } from "./result-json.mjs";

const { maxDepth, maxResultChars } = workerData;

/**
 * Ajv, for steps' output schemas, loaded at the thread's first schema: loading it and compiling its meta-schema took a
 * new thread 0.15-0.75 s on a busy 2-core machine, which every thread would pay at its start (most check no schema),
 * and which slowed the expressions other threads ran meanwhile. The host counts that job's deadline from the end of the
 * load (`loaded`). By its URL, so that a build leaves it a module of its own (scripts/build/entries.ts).
 */
const OUTPUT_SCHEMAS = new URL("./output-schemas.mjs", import.meta.url).href;
let outputSchemas;

async function checkBySchema(job) {
  if (outputSchemas === undefined) {
    outputSchemas = await import(OUTPUT_SCHEMAS);
    parentPort.postMessage({ loaded: true });
  }
  return outputSchemas.checkBySchema(job);
}

/** A job: an expression to evaluate on its context, or an `output_schema` to compile and check an answer by. */
parentPort.on("message", async (job) => {
  try {
    const value =
      job.schema === undefined
        ? await compiledExpression(job.expression, job.owner, maxDepth).evaluate(deserialize(job.context))
        : await checkBySchema(job);
    // JSON text, parsed once by the service's main thread.
    parentPort.postMessage({ ok: true, json: resultJson(value, maxResultChars) });
  } catch (err) {
    const e = err && typeof err === "object" ? err : { message: String(err) };
    parentPort.postMessage({ ok: false, message: String(e.message), position: e.position });
  }
});
parentPort.postMessage({ ready: true });
