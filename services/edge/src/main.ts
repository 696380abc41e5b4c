import cluster from "node:cluster";
import { loadConfig } from "@wf/shared/config";
import { localSource, markStopping, openOps, platformHealth, type OpsSource } from "@wf/shared/ops";
import { openPlatform, runUntilSignal } from "@wf/shared/runtime";
import { superviseEdgeProcesses } from "./edge-processes";
import { edgeMetrics } from "./ops/edge-metrics";
import { answerSupervisor, edgeProcessesSource } from "./ops/edge-process-ops";
import { startEdge } from "./server";

/**
 * WF_EDGE_PROCESSES, read by the supervising process only; a bad configuration is reported by the one-process path
 * below.
 */
function processesWanted(): number {
  if (!cluster.isPrimary) return 1;
  try {
    return loadConfig().WF_EDGE_PROCESSES;
  } catch {
    return 1;
  }
}

/** The supervising process holds the one ops listener, which speaks for every edge process. */
async function superviseWithOps(processes: number): Promise<void> {
  try {
    const ops = await openOps(loadConfig(), "edge");
    ops.attach([localSource({ metrics: [], processMetrics: true }), edgeProcessesSource()]);
  } catch (err) {
    process.stderr.write(`[wf edge] cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, markStopping);
  superviseEdgeProcesses(processes);
}

const processes = processesWanted();
if (processes > 1) {
  await superviseWithOps(processes);
} else {
  let source: OpsSource | null = null;
  if (cluster.isWorker) {
    // A worker whose supervisor is gone, even killed outright, stops as if told to.
    process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
    answerSupervisor(() => source);
  }
  await runUntilSignal("edge", async () => {
    const config = loadConfig();
    const ops = cluster.isWorker ? null : await openOps(config, "edge");
    const platform = await openPlatform(config, "edge");
    const edge = await startEdge(platform);
    source = localSource({ metrics: edgeMetrics, processMetrics: true, health: platformHealth(platform) });
    ops?.attach([source]);
    return async () => {
      markStopping();
      await edge.stop();
      await platform.close();
      await ops?.close();
    };
  });
}
