import { loadConfig } from "@wf/shared/config";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startApprovals } from "@wf/approvals";
import { startEdge } from "@wf/edge";
import { startScheduler } from "@wf/scheduler";
import { startExecutorThread } from "./executor-thread-start";

/**
 * `npm start`: edge, executor, approvals and scheduler in one process, on the embedded defaults;
 * the executor in a thread of its own (executor-thread.ts).
 */
await runUntilSignal("all-in-one", async () => {
  const platform = await openPlatform(loadConfig(), "all-in-one");
  const executor = await startExecutorThread(platform.natsTarget);
  const scheduler = await startScheduler(platform);
  const approvals = await startApprovals(platform);
  const edge = await startEdge(platform);
  process.stderr.write(`[wf] ready: edge on ${edge.url}, namespace ${platform.config.WF_NAMESPACE}, store ${platform.store.kind}\n`);
  return async () => {
    await edge.stop();
    await approvals.stop();
    await executor.stop();
    await scheduler.stop();
    await platform.close();
  };
});
