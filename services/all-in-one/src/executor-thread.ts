/**
 * The executor of `npm start`, in a worker thread of its own: its run loop, its code runners'
 * traffic and its garbage collections never hold up the edge's event loop (with both on one
 * loop, a webhook's p99 was 64–111 ms at 500–1,000 triggers/s). It connects to the server the
 * main thread resolved, with its credentials, handed over in `workerData`. A thread, not a
 * process: a SIGKILL of the service takes it along, so nothing outlives the service. The
 * process's ops listener asks it for its readiness and metrics (executor-ops.ts); the process's
 * own metrics (CPU, memory) are the main thread's to report.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadConfig } from "@wf/shared/config";
import { localSource, platformHealth, type OpsSource } from "@wf/shared/ops";
import { openPlatform } from "@wf/shared/runtime";
import { executorMetrics, startExecutor } from "@wf/executor";
import { answerOps } from "./executor-ops";

let source: OpsSource | null = null;
answerOps(() => source);
const { env } = workerData as { env: Record<string, string> };
const platform = await openPlatform(loadConfig(env), "executor");
const executor = await startExecutor(platform);
source = localSource({ metrics: executorMetrics, processMetrics: false, health: platformHealth(platform) });
parentPort!.on("message", (msg: unknown) => {
  if (msg !== "stop") return;
  void executor
    .stop()
    .then(() => platform.close())
    .finally(() => parentPort!.postMessage("stopped"));
});
parentPort!.postMessage("ready");
