import { newId } from "@wf/shared/execution";
import { newWorkflowRecord, type Store } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/shared/testing";
import { startServiceProcess, type ServiceProcess } from "../support/processes";
import { definitionOf } from "../support/runtime";
import type { LoadResult } from "./api-load";
import { round } from "./stats";

export interface EdgeTargets {
  ns: string;
  bareUrl: string;
  edgeUrl: string;
  stop(): Promise<void>;
}

/**
 * The two servers an edge bench compares, each in a process of its own: a bare Fastify route
 * and a real edge on a fresh namespace. `edgeEnv` (NODE_OPTIONS=--cpu-prof, for one) makes stop()
 * end the edge with SIGTERM first, so it can write what it keeps.
 */
export async function startEdgeTargets(
  server: NatsServerHandle,
  nsPrefix: string,
  track: (close: () => Promise<void>) => () => void,
  edgeEnv?: Record<string, string>,
): Promise<EdgeTargets> {
  const ns = `${nsPrefix}${newId().slice(-10)}`;
  const env = { NATS_URL: server.url, WF_NAMESPACE: ns, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...edgeEnv };
  const processes: ServiceProcess[] = [];
  const killAll = async () => {
    for (const p of processes) await p.kill();
  };
  const untrack = track(killAll);
  const stop = async () => {
    untrack();
    if (edgeEnv && processes[1]) {
      process.kill(processes[1].pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 3_000));
    }
    await killAll();
  };
  try {
    processes.push(await startServiceProcess("test/bench/api-bare-server.ts", {}, ["bare listening"]));
    processes.push(await startServiceProcess("services/edge/src/main.ts", env, ["edge listening"]));
  } catch (err) {
    await stop();
    throw err;
  }
  const [bareUrl, edgeUrl] = processes.map((p) => /"address":"([^"]+)"/.exec(p.output())![1]!);
  return { ns, bareUrl: bareUrl!, edgeUrl: edgeUrl!, stop };
}

/** An Enterprise user (no quota reached) and a workflow of theirs. */
export async function seedEnterpriseWorkflow(store: Store, yaml: string): Promise<{ userId: string; workflowId: string }> {
  const now = Date.now();
  const userId = newId();
  await store.users.create({ id: userId, email: `${userId}@bench.example`, passwordHash: "scrypt$unused", plan: "enterprise", status: "active", createdAt: now, updatedAt: now });
  const workflow = newWorkflowRecord({ ownerId: userId, yaml, definition: definitionOf(yaml) }, now);
  await store.workflows.create(workflow);
  return { userId, workflowId: workflow.id };
}

/** Ours against the bare route: throughput as a fraction, latencies as multiples. */
export function ratiosToBare(ours: LoadResult, bare: LoadResult): { throughputRatio: number; p50Ratio: number; p99Ratio: number } {
  return {
    throughputRatio: round(ours.perSec / bare.perSec, 3),
    p50Ratio: round(ours.latencyMs.p50 / bare.latencyMs.p50, 2),
    p99Ratio: round(ours.latencyMs.p99 / bare.latencyMs.p99, 2),
  };
}
