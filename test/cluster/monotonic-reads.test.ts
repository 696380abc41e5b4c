import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@wf/shared/auth";
import { newId, type ExecutionStatus } from "@wf/shared/execution";
import { connectNats } from "@wf/shared/nats";
import { newWorkflowRecord, openConfiguredStore, type Store } from "@wf/shared/store";
import { startNatsCluster, testUser, waitFor, type NatsClusterHandle } from "@wf/testing";
import { definitionOf } from "../support/runtime";
import { Fleet } from "./fleet";

/**
 * Monotonic reads on a cluster: executions run on three clustered nats-servers (everything at
 * three replicas) behind two edges, while pollers read their status as fast as they can, the
 * executions bucket's leader steps down, and then the server leading it is SIGKILLed and brought
 * back. No poller may see an
 * execution's status go back (RUNNING after COMPLETED, PENDING after RUNNING), nor lose it (a 404
 * after a 200): pollers that keep to one edge without help, and pollers spread over both edges
 * that send back the revision header each answer carries.
 */
const EXECUTIONS = 40;
const START_EVERY_MS = 150;
const POLLERS_PER_KIND = 3;
/** Each key's plan allows 100 requests a second: a poller takes turns with several. */
const KEYS_PER_POLLER = 4;
const HEADER = "x-execution-revision";
/** How long the pollers may take, from the first start, to see every execution end. */
const DEADLINE_MS = 240_000;

const RANK: Record<ExecutionStatus, number> = {
  PENDING: 0,
  RUNNING: 1,
  AWAITING_APPROVAL: 1,
  COMPLETED: 2,
  FAILED: 2,
  CANCELLED: 2,
  INTERRUPTED: 2,
};

const WORKFLOW = `
name: monotonic-reads
steps:
  - { name: first, type: wait, seconds: 0.3 }
  - { name: middle, type: transform, output: 1 }
  - { name: last, type: wait, seconds: 0.3 }
`;

let cluster: NatsClusterHandle;
let nc: NatsConnection;
let store: Store;
let dataDir: string;

beforeAll(async () => {
  cluster = await startNatsCluster(3, `mono-${newId().slice(-6)}`);
  nc = await connectNats(cluster.url, "monotonic-reads-test");
  dataDir = await mkdtemp(join(tmpdir(), "wf-mono-"));
}, 60_000);
afterAll(async () => {
  await store?.close();
  await nc?.close();
  await cluster?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** What one poller saw of the executions: the highest status rank per execution, and each step back. */
class Poller {
  readonly seen = new Map<string, { rank: number; status: string; revision: string | null }>();
  readonly regressions: string[] = [];
  polls = 0;
  #turn = 0;

  constructor(
    readonly name: string,
    private readonly keys: string[],
    /** The edge each poll goes to. */
    private readonly edge: () => string | undefined,
    /** Whether it sends back the revision of the last answer for the execution. */
    private readonly echo: boolean,
  ) {}

  done(ids: readonly string[]): boolean {
    return ids.every((id) => (this.seen.get(id)?.rank ?? 0) === 2);
  }

  async poll(id: string): Promise<void> {
    const base = this.edge();
    if (base === undefined) return new Promise((r) => setTimeout(r, 50));
    const before = this.seen.get(id);
    const headers: Record<string, string> = { "x-api-key": this.keys[this.#turn++ % this.keys.length]! };
    if (this.echo && before?.revision) headers[HEADER] = before.revision;
    const res = await fetch(`${base}/api/v1/executions/${id}`, { headers, signal: AbortSignal.timeout(15_000) }).catch(
      () => null,
    );
    if (res === null) return;
    this.polls++;
    const body = (await res.json().catch(() => ({}))) as { status?: ExecutionStatus };
    if (res.status === 404 && before) this.regressions.push(`${this.name} ${id}: 404 after ${before.status}`);
    if (res.status !== 200 || body.status === undefined) return;
    const rank = RANK[body.status];
    if (before && rank < before.rank)
      this.regressions.push(`${this.name} ${id}: ${body.status} after ${before.status}`);
    if (!before || rank >= before.rank)
      this.seen.set(id, { rank, status: body.status, revision: res.headers.get(HEADER) });
  }
}

describe("reads of an execution on a cluster", () => {
  it("never go back for a poller while executions run, the bucket's leader steps down and its server is killed", async () => {
    const ns = `mono${newId().slice(-8)}`;
    const fleet = await Fleet.start(
      {
        NATS_URL: cluster.url,
        WF_NAMESPACE: ns,
        WF_DATA_DIR: dataDir,
        PORT: "0",
        WF_OPS_PORT: "0",
        // Longer than the cluster takes to move the killed server's leaders: no execution ends INTERRUPTED.
        WF_EXEC_LEASE_MS: "10000",
      },
      2,
      ["edge", "executor"],
    );
    try {
      store = await openConfiguredStore({ WF_NAMESPACE: ns, MONGODB_DATABASE: "wf" }, nc);
      const user = { ...testUser(), plan: "enterprise" as const };
      await store.users.create(user);
      const keys = await Promise.all(
        Array.from({ length: 2 * POLLERS_PER_KIND * KEYS_PER_POLLER + 1 }, async () => {
          const scopes = ["WORKFLOW_EXECUTE" as const, "EXECUTION_READ" as const];
          return (await createApiKey(store, { ownerId: user.id, scopes })).key;
        }),
      );
      const workflow = newWorkflowRecord({ ownerId: user.id, yaml: WORKFLOW, definition: definitionOf(WORKFLOW) });
      await store.workflows.create(workflow);
      const edges = () => fleet.edges();
      const pollers = Array.from({ length: 2 * POLLERS_PER_KIND }, (_, i) => {
        const own = keys.slice(i * KEYS_PER_POLLER, (i + 1) * KEYS_PER_POLLER);
        return i < POLLERS_PER_KIND
          ? new Poller(`pinned${i}`, own, () => edges()[i % 2], false)
          : new Poller(`spread${i}`, own, () => edges()[Math.floor(Math.random() * edges().length)], true);
      });

      const ids: string[] = [];
      let starting = true;
      const deadline = Date.now() + DEADLINE_MS;
      const polling = pollers.map(async (p) => {
        while ((starting || !p.done(ids)) && Date.now() < deadline) {
          const open = ids.filter((id) => (p.seen.get(id)?.rank ?? 0) < 2);
          if (open.length === 0) await new Promise((r) => setTimeout(r, 10));
          for (const id of open) await p.poll(id);
        }
      });

      // A quarter of the way through the starts the executions bucket's leader steps down (as a server does when it
      // loses touch with its peers, or an operator asks): living on, it answers direct gets as a follower. At a third
      // the server leading it then goes down, and it comes back at two thirds, catching up.
      const jsm = await jetstreamManager(nc);
      const stream = `KV_${ns}_executions`;
      const events: string[] = [];
      let killed: number | null = null;
      const starter = keys.at(-1)!;
      try {
        for (let n = 0; n < EXECUTIONS; n++) {
          if (n === Math.floor(EXECUTIONS / 4)) {
            const before = (await jsm.streams.info(stream)).cluster?.leader;
            await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, "", { timeout: 10_000 });
            const after = await waitFor(
              async () => {
                const leader = (await jsm.streams.info(stream)).cluster?.leader;
                return leader && leader !== before ? leader : undefined;
              },
              { timeoutMs: 30_000, intervalMs: 200, what: "another leader of the executions bucket" },
            );
            events.push(`${before} stepped down for ${after} at start ${n}`);
          }
          if (n === Math.floor(EXECUTIONS / 3)) {
            const leader = (await jsm.streams.info(stream)).cluster?.leader ?? "";
            killed = Math.max(0, Number(leader.split("-").at(-1)) - 1);
            events.push(`killed ${leader} at start ${n}`);
            await cluster.servers[killed]!.kill();
          }
          if (n === Math.floor((2 * EXECUTIONS) / 3) && killed !== null) {
            await cluster.servers[killed]!.start();
            events.push(`restarted at start ${n}`);
          }
          const started = await waitFor(
            async () => {
              const base = edges()[n % edges().length]!;
              const res = await fetch(`${base}/api/v1/workflows/${workflow.id}/executions`, {
                method: "POST",
                headers: { "x-api-key": starter, "content-type": "application/json" },
                body: "{}",
                signal: AbortSignal.timeout(15_000),
              });
              return res.status === 202 ? ((await res.json()) as { executionId: string }).executionId : undefined;
            },
            { timeoutMs: 60_000, intervalMs: 200, what: `start ${n} to be accepted` },
          );
          ids.push(started);
          await new Promise((r) => setTimeout(r, START_EVERY_MS));
        }
      } finally {
        starting = false;
      }
      await Promise.all(polling);

      const report = {
        executions: ids.length,
        polls: Object.fromEntries(pollers.map((p) => [p.name, p.polls])),
        regressions: Object.fromEntries(pollers.map((p) => [p.name, p.regressions.length])),
        ended: countBy(ids.map((id) => pollers[0]!.seen.get(id)?.status ?? "not seen ending")),
        events,
      };
      process.stdout.write(`[monotonic-reads] ${JSON.stringify(report)}\n`);
      expect(pollers.flatMap((p) => p.regressions)).toEqual([]);
      // Within the deadline, every poller saw every execution end.
      expect(pollers.map((p) => `${p.name}: ${ids.filter((id) => !p.done([id])).length} not seen ending`)).toEqual(
        pollers.map((p) => `${p.name}: 0 not seen ending`),
      );
    } finally {
      await fleet.stop();
    }
  }, 600_000);
});

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
