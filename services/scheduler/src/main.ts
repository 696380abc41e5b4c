import { loadConfig } from "@wf/shared/config";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startScheduler } from "./service";

await runUntilSignal("scheduler", async () => {
  const platform = await openPlatform(loadConfig(), "scheduler");
  const scheduler = await startScheduler(platform);
  return async () => {
    await scheduler.stop();
    await platform.close();
  };
});
