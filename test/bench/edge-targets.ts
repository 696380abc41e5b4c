import { newId } from "@wf/shared/execution";
import { newWorkflowRecord, type Store, type WorkflowRecord } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { startServiceProcess, type ServiceProcess } from "../support/processes";
import { definitionOf } from "../support/runtime";
import type { LoadResult } from "./api-load";
import { round } from "./stats";

/** One edge (the image's `node dist/edge.js`) of WF_EDGE_PROCESSES `processes`; `pid` is its top process. */
export interface EdgeTarget {
  processes: number;
  url: string;
  pid: number;
}

export interface EdgeTargets {
  ns: string;
  bareUrl: string;
  /** The bare route's process, to read its CPU time. */
  barePid: number;
  /** The first edge's URL and process. */
  edgeUrl: string;
  edgePid: number;
  /** Every edge, in the order of `edgeProcesses`, all on the one namespace. */
  edges: EdgeTarget[];
  stop(): Promise<void>;
}

/**
 * The servers an edge bench compares, each in processes of its own: a bare Fastify route and
 * real edges on a fresh namespace, one per entry of `edgeProcesses` (its WF_EDGE_PROCESSES).
 * `edgeEnv` (NODE_OPTIONS=--cpu-prof, for one) or an edge of several processes makes stop() end
 * the edges with SIGTERM first, so that they write what they keep and stop their workers.
 */
export async function startEdgeTargets(
  server: NatsServerHandle,
  nsPrefix: string,
  track: (close: () => Promise<void>) => () => void,
  edgeEnv?: Record<string, string>,
  edgeProcesses: readonly number[] = [1],
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
    if (edgeEnv || edgeProcesses.some((n) => n > 1)) {
      for (const p of processes.slice(1)) process.kill(p.pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 3_000));
    }
    await killAll();
  };
  try {
    processes.push(
      await startServiceProcess("test/bench/api-bare-server.ts", {}, ["bare listening"], { fromSource: true }),
    );
    for (const n of edgeProcesses)
      processes.push(
        await startServiceProcess("services/edge/src/main.ts", { ...env, WF_EDGE_PROCESSES: String(n) }, [
          "edge listening",
        ]),
      );
  } catch (err) {
    await stop();
    throw err;
  }
  const [bareUrl, ...edgeUrls] = processes.map((p) => /"address":"([^"]+)"/.exec(p.output())![1]!);
  const edges = edgeUrls.map((url, i) => ({ processes: edgeProcesses[i]!, url, pid: processes[i + 1]!.pid }));
  return {
    ns,
    bareUrl: bareUrl!,
    barePid: processes[0]!.pid,
    edgeUrl: edges[0]!.url,
    edgePid: edges[0]!.pid,
    edges,
    stop,
  };
}

/** An Enterprise user (no quota reached) and a workflow of theirs. */
export async function seedEnterpriseWorkflow(
  store: Store,
  yaml: string,
  userId = newId(),
): Promise<{ userId: string; workflow: WorkflowRecord }> {
  const now = Date.now();
  await store.users.create({
    id: userId,
    email: `${userId}@bench.example`,
    passwordHash: "scrypt$unused",
    plan: "enterprise",
    status: "active",
    createdAt: now,
    updatedAt: now,
  });
  const workflow = newWorkflowRecord({ ownerId: userId, yaml, definition: definitionOf(yaml) }, now);
  await store.workflows.create(workflow);
  return { userId, workflow };
}

/** Ours against the bare route: throughput as a fraction, latencies as multiples. */
export function ratiosToBare(
  ours: LoadResult,
  bare: LoadResult,
): { throughputRatio: number; p50Ratio: number; p99Ratio: number } {
  return {
    throughputRatio: round(ours.perSec / bare.perSec, 3),
    p50Ratio: round(ours.latencyMs.p50 / bare.latencyMs.p50, 2),
    p99Ratio: round(ours.latencyMs.p99 / bare.latencyMs.p99, 2),
  };
}
