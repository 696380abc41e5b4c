import { Worker } from "node:worker_threads";
import type { NatsTarget } from "@wf/shared/nats";

/** How long a stopping executor may take to hand back what it holds before its thread is ended. */
const STOP_MS = 30_000;
/**
 * The thread's module beside this one: built (dist/*.js, `npm run build`) or the TypeScript
 * source, which the tsx loader this process runs under (and the thread inherits) compiles.
 */
const THREAD = new URL(
  import.meta.url.endsWith(".js") ? "./executor-thread.js" : "./executor-thread.ts",
  import.meta.url,
);

/**
 * Starts the executor thread (executor-thread.ts) on `target`, and resolves once it is ready;
 * rejects when it fails to start. An executor that dies later ends the process: a service whose
 * executions no longer run should be restarted, not go on answering.
 */
export async function startExecutorThread(target: NatsTarget): Promise<{ stop(): Promise<void> }> {
  const auth = target.auth;
  const env: Record<string, string> = {
    ...(Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
    ) as Record<string, string>),
    NATS_URL: target.url,
    ...("token" in auth ? { NATS_TOKEN: auth.token } : {}),
    ...("user" in auth ? { NATS_USER: auth.user, NATS_PASSWORD: auth.pass } : {}),
  };
  const worker = new Worker(THREAD, { workerData: { env } });
  let state: "starting" | "running" | "stopping" = "starting";
  let stopped: () => void = () => undefined;
  await new Promise<void>((resolve, reject) => {
    // One listener each for the thread's life: its messages are "ready", then "stopped".
    worker.on("message", (msg: unknown) => {
      if (msg === "ready") resolve();
      if (msg === "stopped") stopped();
    });
    worker.on("error", (err) => {
      if (state === "starting") return reject(err);
      process.stderr.write(
        `[wf] the executor thread failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    });
    worker.on("exit", (code) => {
      if (state === "starting") return reject(new Error(`the executor thread exited with code ${code} while starting`));
      if (state === "stopping") return stopped();
      process.stderr.write(`[wf] the executor thread exited (code ${code})\n`);
      process.exit(1);
    });
  });
  state = "running";
  return {
    async stop() {
      state = "stopping";
      const done = new Promise<void>((resolve) => (stopped = resolve));
      worker.postMessage("stop");
      await Promise.race([done, new Promise((r) => setTimeout(r, STOP_MS).unref())]);
      await worker.terminate();
    },
  };
}
