import { loadConfig } from "@wf/shared/config";
import { localSource, markStopping, openOps, platformHealth } from "@wf/shared/ops";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startApprovals } from "@wf/approvals";
import { edgeMetrics, startEdge } from "@wf/edge";
import { schedulerMetrics, startScheduler } from "@wf/scheduler";
import { executorThreadSource } from "./executor-ops";
import { startExecutorThread } from "./executor-thread-start";

/**
 * `npm start`: edge, executor, approvals and scheduler in one process, on the embedded defaults;
 * the executor in a thread of its own (executor-thread.ts), whose metrics and readiness the
 * process's one ops listener asks for (executor-ops.ts).
 */
await runUntilSignal("all-in-one", async () => {
  const config = loadConfig();
  const ops = await openOps(config, "all-in-one");
  const platform = await openPlatform(config, "all-in-one");
  const executor = await startExecutorThread(platform.natsTarget);
  const scheduler = await startScheduler(platform);
  const approvals = await startApprovals(platform);
  const edge = await startEdge(platform);
  ops.attach([
    localSource({
      metrics: [...edgeMetrics, ...schedulerMetrics],
      processMetrics: true,
      health: platformHealth(platform),
    }),
    executorThreadSource(),
  ]);
  process.stderr.write(
    `[wf] ready: edge on ${edge.url}, namespace ${platform.config.WF_NAMESPACE}, store ${platform.store.kind}\n`,
  );
  return async () => {
    markStopping();
    await edge.stop();
    await approvals.stop();
    await executor.stop();
    await scheduler.stop();
    await platform.close();
    await ops.close();
  };
});
