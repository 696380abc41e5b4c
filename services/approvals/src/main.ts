import { loadConfig } from "@wf/shared/config";
import { localSource, markStopping, openOps, platformHealth } from "@wf/shared/ops";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startApprovals } from "./service";

await runUntilSignal("approvals", async () => {
  const config = loadConfig();
  const ops = await openOps(config, "approvals");
  const platform = await openPlatform(config, "approvals");
  const approvals = await startApprovals(platform);
  ops.attach([localSource({ metrics: [], processMetrics: true, health: platformHealth(platform) })]);
  return async () => {
    markStopping();
    await approvals.stop();
    await platform.close();
    await ops.close();
  };
});
