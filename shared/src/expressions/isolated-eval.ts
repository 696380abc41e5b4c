import { Worker } from "node:worker_threads";

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: NodeJS.Timeout;
}

let worker: Worker | null = null;
let seq = 0;
const pending = new Map<number, Pending>();

function failAll(err: Error): void {
  for (const p of pending.values()) {
    clearTimeout(p.timer);
    p.reject(err);
  }
  pending.clear();
}

function getWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL("./eval-worker.mjs", import.meta.url));
  w.unref();
  w.on("message", (m: { id: number; ok: boolean; value?: unknown; message?: string; position?: number }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok) p.resolve(m.value);
    else p.reject({ message: m.message, position: m.position });
  });
  w.on("error", (err) => {
    worker = null;
    failAll(err);
  });
  w.on("exit", () => {
    if (worker === w) worker = null;
    failAll(new Error("expression worker stopped"));
  });
  worker = w;
  return w;
}

/**
 * Runs one expression in the worker with a hard deadline: a tail-recursive JSONata function
 * loops synchronously and would otherwise block the process. On timeout the worker is
 * terminated (a fresh one serves the next call).
 */
export function evaluateInWorker(expression: string, context: unknown, timeoutMs: number): Promise<unknown> {
  const w = getWorker();
  const id = ++seq;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`took longer than ${timeoutMs} ms`));
      if (worker === w) worker = null;
      void w.terminate();
    }, timeoutMs);
    pending.set(id, { resolve, reject, timer });
    w.postMessage({ id, expression, context });
  });
}
