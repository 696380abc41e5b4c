import cluster from "node:cluster";
import { loadConfig } from "@wf/shared/config";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { superviseEdgeProcesses } from "./edge-processes";
import { startEdge } from "./server";

/** WF_EDGE_PROCESSES, read by the supervising process only; a bad configuration is reported by the one-process path below. */
function processesWanted(): number {
  if (!cluster.isPrimary) return 1;
  try {
    return loadConfig().WF_EDGE_PROCESSES;
  } catch {
    return 1;
  }
}

const processes = processesWanted();
if (processes > 1) {
  superviseEdgeProcesses(processes);
} else {
  // A worker whose supervisor is gone, even killed outright, stops as if told to.
  if (cluster.isWorker) process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  await runUntilSignal("edge", async () => {
    const platform = await openPlatform(loadConfig(), "edge");
    const edge = await startEdge(platform);
    return async () => {
      await edge.stop();
      await platform.close();
    };
  });
}
