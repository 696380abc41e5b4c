/**
 * The executor of `npm start`, in a worker thread of its own: its run loop, its runners' traffic and
 * its garbage collections never hold up the edge's event loop (on one loop, a webhook's p99 was
 * 64–111 ms at 500–1,000 triggers/s). A thread, not a process: a SIGKILL of the service takes it
 * along. It connects with the main thread's server and credentials (`workerData`), runs on spare CPU
 * (WF_EXECUTOR_IDLE, _NICE, _BATCH) and answers the process's ops listener (executor-ops.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadConfig } from "@wf/shared/config";
import { localSource, platformHealth, type OpsSource } from "@wf/shared/ops";
import { niceThisThread, openPlatform, scheduleThisThread } from "@wf/shared/runtime";
import { executorMetrics, startExecutor } from "@wf/executor";
import { answerOps } from "./executor-ops";

let source: OpsSource | null = null;
answerOps(() => source);
const { env } = workerData as { env: Record<string, string> };
const config = loadConfig(env);
const platform = await openPlatform(config, "executor");
// Before the executor forks its code runners, which inherit it. The nice value stays if the policy cannot be set.
const refused = config.WF_EXECUTOR_NICE > 0 ? niceThisThread(config.WF_EXECUTOR_NICE) : null;
if (refused) platform.log.warn(`the executor thread keeps the process's CPU priority (WF_EXECUTOR_NICE): ${refused}`);
const policy = config.WF_EXECUTOR_IDLE ? "idle" : config.WF_EXECUTOR_BATCH ? "batch" : null;
const unscheduled = policy ? scheduleThisThread(policy) : null;
if (unscheduled)
  platform.log.warn(
    `the executor thread keeps the default scheduling policy (${policy === "idle" ? "WF_EXECUTOR_IDLE" : "WF_EXECUTOR_BATCH"}): ${unscheduled}`,
  );
platform.log.info("executor thread scheduling", {
  nice: refused ? 0 : config.WF_EXECUTOR_NICE,
  policy: unscheduled ? "other" : (policy ?? "other"),
});
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
