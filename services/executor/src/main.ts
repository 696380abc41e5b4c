import { loadConfig } from "@wf/shared/config";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startExecutor } from "./service";

await runUntilSignal("executor", async () => {
  const platform = await openPlatform(loadConfig(), "executor");
  const executor = await startExecutor(platform);
  return async () => {
    await executor.stop();
    await platform.close();
  };
});
