import { loadConfig } from "@wf/shared/config";
import { localSource, markStopping, openOps, platformHealth } from "@wf/shared/ops";
import { openPlatform, runUntilSignal, scheduleThisThread } from "@wf/shared/runtime";
import { executorMetrics } from "./ops/executor-metrics";
import { startExecutor } from "./service";

await runUntilSignal("executor", async () => {
  const config = loadConfig();
  const ops = await openOps(config, "executor");
  const platform = await openPlatform(config, "executor");
  // Before the executor forks its code runners, which inherit it.
  const unbatched = config.WF_EXECUTOR_BATCH ? scheduleThisThread("batch") : null;
  if (unbatched)
    platform.log.warn(`the executor keeps the default scheduling policy (WF_EXECUTOR_BATCH): ${unbatched}`);
  const executor = await startExecutor(platform);
  ops.attach([localSource({ metrics: executorMetrics, processMetrics: true, health: platformHealth(platform) })]);
  return async () => {
    markStopping();
    await executor.stop();
    await platform.close();
    await ops.close();
  };
});
