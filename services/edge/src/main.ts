import { loadConfig } from "@wf/shared/config";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { startEdge } from "./server";

await runUntilSignal("edge", async () => {
  const platform = await openPlatform(loadConfig(), "edge");
  const edge = await startEdge(platform);
  return async () => {
    await edge.stop();
    await platform.close();
  };
});
