/**
 * The floor's sandbox runner: a child process that runs JavaScript steps in isolated-vm, one
 * isolate, one context per workflow kept for all its runs. Requests and answers are JSON lines
 * on stdin and stdout. It does the least a process-separated JavaScript sandbox can: no pool,
 * no limits beyond the isolate's memory, no logs or artifacts.
 */
import { createInterface } from "node:readline";
import ivm from "isolated-vm";

export interface FloorStepRequest {
  id: number;
  /** Runs of one key share a context. */
  key: string;
  code: string;
  input: unknown;
}

export type FloorStepAnswer = { id: number; ok: true; output: unknown } | { id: number; ok: false; error: string };

const isolate = new ivm.Isolate({ memoryLimit: 128 });
const contexts = new Map<string, Promise<ivm.Context>>();

function contextFor(key: string): Promise<ivm.Context> {
  let context = contexts.get(key);
  if (!context) {
    context = isolate.createContext();
    contexts.set(key, context);
  }
  return context;
}

async function run(req: FloorStepRequest): Promise<FloorStepAnswer> {
  try {
    const context = await contextFor(req.key);
    const settled: string = await context.evalClosure(
      `return (async function (input) {\n${req.code}\n})(JSON.parse($0)).then((v) => JSON.stringify(v === undefined ? null : v));`,
      [JSON.stringify(req.input)],
      { result: { promise: true }, timeout: 10_000 },
    );
    return { id: req.id, ok: true, output: JSON.parse(settled) as unknown };
  } catch (err) {
    return { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  void run(JSON.parse(line) as FloorStepRequest).then((answer) => process.stdout.write(`${JSON.stringify(answer)}\n`));
});
