import { loadConfig } from "@wf/shared/config";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startApprovals } from "./service";

await runUntilSignal("approvals", async () => {
  const platform = await openPlatform(loadConfig(), "approvals");
  const approvals = await startApprovals(platform);
  return async () => {
    await approvals.stop();
    await platform.close();
  };
});
