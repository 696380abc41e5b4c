import { loadConfig } from "@wf/shared/config";
import { localSource, markStopping, openOps, platformHealth } from "@wf/shared/ops";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startScheduler } from "./service";
import { schedulerMetrics } from "./timer-metrics";

await runUntilSignal("scheduler", async () => {
  const config = loadConfig();
  const ops = await openOps(config, "scheduler");
  const platform = await openPlatform(config, "scheduler");
  const scheduler = await startScheduler(platform);
  ops.attach([localSource({ metrics: schedulerMetrics, processMetrics: true, health: platformHealth(platform) })]);
  return async () => {
    markStopping();
    await scheduler.stop();
    await platform.close();
    await ops.close();
  };
});
