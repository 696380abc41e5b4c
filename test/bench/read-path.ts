/**
 * What reading an execution by id costs, as a poller's GET /api/v1/executions/{id} does, on the
 * bench's nats-server and on three clustered on this machine (R3): reads at a fixed concurrency,
 * the direct get (the baseline), the store's get (a direct get checked against what this process
 * saw: docs/architecture.md#storage), the same with a revision the caller sent back, and a message
 * get, which only the stream's leader answers (a leader read on every poll); then polls through an
 * in-process edge with and without X-Execution-Revision, and with one ahead of the record, which
 * reads every poll again at the leader. Variants take turns in every round, so
 * that drift falls on all alike; ratios are to the baseline of the same run.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { createApiKey } from "@wf/shared/auth";
import { loadConfig } from "@wf/shared/config";
import { ExecutionSnapshot, newId } from "@wf/shared/execution";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { startNatsCluster, testUser, type NatsServerHandle } from "@wf/testing";
import { buildEdge } from "@wf/edge";
import { median, round } from "./stats";

export interface ReadPathSizes {
  /** Executions read in turn. */
  executions: number;
  /** Reads or polls in flight at once. */
  concurrency: number;
  /** Rounds; each runs every variant for `roundMs`. */
  rounds: number;
  roundMs: number;
}

export const READ_PATH_SIZES: ReadPathSizes = { executions: 200, concurrency: 16, rounds: 5, roundMs: 1_000 };
export const READ_PATH_QUICK_SIZES: ReadPathSizes = { executions: 50, concurrency: 16, rounds: 2, roundMs: 300 };

/** Each key may make 100 requests a second (the enterprise plan): polls take turns with these many. */
const KEYS = 64;

export interface Rate {
  /** Median of the rounds. */
  perSec: number;
  /** perSec / the baseline's. */
  ratio: number;
}

export interface ReadPathRun {
  reads: Record<string, Rate>;
  polls: Record<string, Rate>;
}

export interface ReadPathResult {
  sizes: ReadPathSizes;
  single: ReadPathRun;
  cluster: ReadPathRun;
  clusterVersion: string;
}

export async function runReadPathBench(
  server: NatsServerHandle,
  sizes: ReadPathSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<ReadPathResult> {
  opts.progress("read path: one nats-server");
  const single = await measure(server.url, sizes);
  opts.progress("read path: three nats-servers clustered on loopback, everything at three replicas");
  const cluster = await startNatsCluster(3, "wf-bench-reads");
  const untrack = opts.track(() => cluster.stop());
  try {
    return { sizes, single, cluster: await measure(cluster.url, sizes), clusterVersion: cluster.servers[0]!.version };
  } finally {
    untrack();
    await cluster.stop();
  }
}

async function measure(url: string, sizes: ReadPathSizes): Promise<ReadPathRun> {
  const ns = `bench${newId().slice(-8)}`;
  const platform = await openPlatform(
    loadConfig({ NATS_URL: url, WF_NAMESPACE: ns, LOG_LEVEL: "error" }),
    "bench-reads",
  );
  try {
    const { ids, versions, keys } = await seed(platform, sizes.executions);
    const jsm = await jetstreamManager(platform.nc);
    const stream = `KV_${ns}_executions`;
    const subject = (i: number) => `$KV.${ns}_executions.${ids[i]}`;
    const store = platform.store.executions;
    const reads = await rounds(sizes, "direct get", {
      "direct get": (i) => jsm.direct.getMessage(stream, { last_by_subj: subject(i) }),
      "store get": (i) => store.get(ids[i]!),
      "store get, revision sent back": (i) => store.get(ids[i]!, versions[i]),
      "leader read (message get)": (i) => jsm.streams.getMessage(stream, { last_by_subj: subject(i) }),
    });
    const app = await buildEdge(platform);
    try {
      let turn = 0;
      const poll = async (i: number, headers: Record<string, string>) => {
        const r = await app.inject({
          method: "GET",
          url: `/api/v1/executions/${ids[i]}`,
          headers: { ...headers, authorization: `Bearer ${keys[turn++ % keys.length]}` },
        });
        if (r.statusCode !== 200) throw new Error(`poll: ${r.statusCode} ${r.body}`);
      };
      const polls = await rounds(sizes, "poll", {
        poll: (i) => poll(i, {}),
        "poll, revision sent back": (i) => poll(i, { "x-execution-revision": String(versions[i]) }),
        // Ahead of every record: each poll's direct get is read again at the leader (the fallback's cost, always).
        "poll, read again at the leader": (i) => poll(i, { "x-execution-revision": "999999999999999" }),
      });
      return { reads, polls };
    } finally {
      await app.close();
    }
  } finally {
    await platform.close();
  }
}

/** Every variant once a round, in a turning order; each variant's median rate and its ratio to `baseline`'s. */
async function rounds(
  sizes: ReadPathSizes,
  baseline: string,
  variants: Record<string, (i: number) => Promise<unknown>>,
): Promise<Record<string, Rate>> {
  const names = Object.keys(variants);
  const samples = new Map<string, number[]>(names.map((n) => [n, []]));
  // One untimed round first: JIT, connections, the server's caches.
  for (const name of names) await rate(variants[name]!, sizes, Math.min(sizes.roundMs, 300));
  for (let r = 0; r < sizes.rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length]!;
      samples.get(name)!.push(await rate(variants[name]!, sizes, sizes.roundMs));
    }
  }
  const medians = new Map(names.map((n) => [n, median([...samples.get(n)!].sort((a, b) => a - b))]));
  const base = medians.get(baseline)!;
  return Object.fromEntries(
    names.map((n) => [n, { perSec: Math.round(medians.get(n)!), ratio: round(medians.get(n)! / base) }]),
  );
}

/** Completed calls a second, `sizes.concurrency` in flight, for `ms`. */
async function rate(read: (i: number) => Promise<unknown>, sizes: ReadPathSizes, ms: number): Promise<number> {
  let done = 0;
  let next = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: sizes.concurrency }, async () => {
      while (performance.now() < end) {
        await read(next++ % sizes.executions);
        done++;
      }
    }),
  );
  return done / (ms / 1_000);
}

async function seed(platform: Platform, n: number): Promise<{ ids: string[]; versions: number[]; keys: string[] }> {
  const user = { ...testUser(), plan: "enterprise" as const };
  await platform.store.users.create(user);
  const keys = await Promise.all(
    Array.from(
      { length: KEYS },
      async () => (await createApiKey(platform.store, { ownerId: user.id, scopes: ["EXECUTION_READ"] })).key,
    ),
  );
  const ids: string[] = [];
  const versions: number[] = [];
  for (let i = 0; i < n; i++) {
    const snapshot = ExecutionSnapshot.parse({
      id: newId(),
      workflowId: "wf",
      workflowName: "wf",
      ownerId: user.id,
      triggerSource: "open_api",
      status: "RUNNING",
      totalSteps: 1,
      createdAt: Date.now(),
      vars: {},
      definition: { name: "wf", steps: [] },
    });
    ids.push(snapshot.id);
    versions.push(await platform.store.executions.create(snapshot));
  }
  return { ids, versions, keys };
}

export function renderReadPathBench(r: ReadPathResult): string {
  const table = (run: ReadPathRun) =>
    [...Object.entries(run.reads), ...Object.entries(run.polls)].map(
      ([name, v]) => `  ${name.padEnd(32)} ${String(v.perSec).padStart(7)}/s  ×${v.ratio}`,
    );
  return [
    `Reading an execution by id (${r.sizes.concurrency} in flight; median of ${r.sizes.rounds} rounds of ${r.sizes.roundMs} ms; ratios to the direct get, or to the plain poll)`,
    "one nats-server:",
    ...table(r.single),
    `3-node cluster (R3, nats-server ${r.clusterVersion}, all on this machine):`,
    ...table(r.cluster),
  ].join("\n");
}
