import { AckPolicy } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { ArtifactFiles } from "@wf/shared/artifacts";
import { createApiKey } from "@wf/shared/auth";
import { newId, type ExecutionSnapshot } from "@wf/shared/execution";
import { ApprovalRecord, type ApiKeyRecord, type WorkflowRecord } from "@wf/shared/store";
import { ALL_SCOPES, call, SIMPLE_YAML, storedExecution, storeWorkflow } from "../api/support";
import { consoleCall, consoleSession, useConsole, type ConsoleEnv } from "./support";

/**
 * Lists on KV make no JetStream consumer per request (docs/architecture.md, Lists on KV): on a
 * cluster each consumer made is a meta-leader proposal. Every consumer is made by a request on
 * `$JS.API.CONSUMER.CREATE.>` (or `.DURABLE.CREATE.>`), which a plain subscription sees. The
 * execution and approval lists follow their index with one consumer per process, made when their
 * views start: started before the count, as WF_LIST_VIEW_AT_START=1 starts them.
 */
const env = useConsole({ runtime: false });

const CREATES = ["$JS.API.CONSUMER.CREATE.", "$JS.API.CONSUMER.DURABLE.CREATE."];

/** The subjects of the consumer creates `run` makes, seen by a subscription of another connection. */
async function consumerCreates(e: ConsoleEnv, run: () => Promise<void>): Promise<string[]> {
  const watcher = await connect({ servers: e.server.url });
  try {
    const seen: string[] = [];
    watcher.subscribe("$JS.API.CONSUMER.>", {
      callback: (_err, m) => {
        seen.push(m.subject);
      },
    });
    await watcher.flush();
    await run();
    // Every request the edge sent is at the server, and everything it sent on is here.
    await e.platform.nc.flush();
    await watcher.flush();
    return seen.filter((subject) => CREATES.some((prefix) => subject.startsWith(prefix)));
  } finally {
    await watcher.close();
  }
}

interface Dated {
  id: string;
  createdAt: number;
}

/** The ids in list order: by creation time, then id. */
function ordered(items: Dated[], order: "asc" | "desc"): string[] {
  const sign = order === "asc" ? 1 : -1;
  return items
    .toSorted((a, b) => sign * (a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    .map((i) => i.id);
}

function approval(e: ExecutionSnapshot, createdAt: number): ApprovalRecord {
  return ApprovalRecord.parse({
    id: newId(createdAt),
    executionId: e.id,
    workflowId: e.workflowId,
    ownerId: e.ownerId,
    stepName: "review",
    status: "PENDING",
    approvalMessage: "Check",
    timeout: 3600,
    createdAt,
    expiresAt: createdAt + 3_600_000,
    reviewableGroups: [],
  });
}

describe("lists on KV", () => {
  it("make no consumer, page after page: workflows, webhooks, artifacts, API keys, executions, approvals", async () => {
    const e = env();
    const store = e.platform.store;
    const me = await consoleSession(e, "team");
    const owner = me.user.id;
    const keys: ApiKeyRecord[] = [];
    for (let i = 0; i < 3; i++)
      keys.push((await createApiKey(store, { ownerId: owner, scopes: ALL_SCOPES, expiresAt: null })).record);
    const key = (await createApiKey(store, { ownerId: owner, scopes: ALL_SCOPES, expiresAt: null })).key;
    const v1 = async (path: string) => {
      const r = await call(e, "GET", path, { key });
      expect(r.statusCode, `${path}: ${r.body}`).toBe(200);
      return r.json<Record<string, unknown>>();
    };
    const consoleGet = async (path: string) => {
      const r = await consoleCall(e, me, "GET", path);
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
      return r.body;
    };

    const workflows: WorkflowRecord[] = [];
    for (let i = 0; i < 5; i++) workflows.push(await storeWorkflow(e, owner, SIMPLE_YAML, { name: `list-${i}` }));
    const webhooks: Dated[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await consoleCall(e, me, "POST", "/api/webhooks", {
        body: { workflowId: workflows[i]!.id, name: `hook-${i}` },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      webhooks.push(r.body as unknown as Dated);
    }
    const t0 = Date.now() - 60_000;
    const executions = [0, 1, 2].map((i) =>
      storedExecution({ ownerId: owner, workflowId: workflows[0]!.id, createdAt: t0 + i * 1000 }),
    );
    for (const x of executions) await store.executions.create(x);
    const approvals = [0, 1, 2].map((i) => approval(executions[0]!, t0 + i * 1000));
    for (const a of approvals) await store.approvals.create(a);
    // Through the Object Store, as the executor stores a step's files.
    const files = await ArtifactFiles.open(e.platform.nc, e.ns, e.platform.placement, store);
    const artifacts = new Map<string, Dated[]>();
    for (const [i, x] of executions.slice(0, 2).entries()) {
      const written = [0, 1, 2]
        .slice(0, 3 - i)
        .map((n) => ({ path: `out/${n}.txt`, content: Buffer.from(`file ${n}`) }));
      artifacts.set(x.id, await files.save({ executionId: x.id, ownerId: owner, stepName: "greet" }, written));
    }
    await store.executions.startListing();
    await store.approvals.startListing();

    const creates = await consumerCreates(e, async () => {
      for (let round = 0; round < 3; round++) {
        const v1Workflows: string[] = [];
        for (let page = 1; page <= 3; page++) {
          const body = await v1(`/api/v1/workflows?page=${page}&size=2`);
          expect(body.total).toBe(5);
          v1Workflows.push(...(body.items as { name: string }[]).map((w) => w.name));
        }
        expect(v1Workflows).toEqual(["list-0", "list-1", "list-2", "list-3", "list-4"]);

        const consoleWorkflows: Dated[] = [];
        let cursor: string | null = null;
        do {
          const body = await consoleGet(`/api/console/workflows?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
          consoleWorkflows.push(...(body.items as Dated[]));
          cursor = body.nextCursor as string | null;
        } while (cursor !== null);
        expect(consoleWorkflows.map((w) => w.id).toSorted()).toEqual(workflows.map((w) => w.id).toSorted());

        const hooks: Dated[] = [];
        for (let page = 1; page <= 3; page++) {
          const body = await consoleGet(`/api/webhooks?page=${page}&size=2`);
          expect(body.total).toBe(5);
          hooks.push(...(body.items as Dated[]));
        }
        expect(hooks.map((h) => h.id)).toEqual(ordered(webhooks, "desc"));

        for (const [executionId, saved] of artifacts) {
          const body = await v1(`/api/v1/executions/${executionId}/artifacts`);
          expect(body.total).toBe(saved.length);
          expect((body.artifacts as Dated[]).map((a) => a.id)).toEqual(ordered(saved, "asc"));
        }

        const keyList = (await consoleGet("/api/console/keys")).items as Dated[];
        expect(keyList.length).toBe(4);
        expect(keyList.map((k) => k.id)).toEqual(expect.arrayContaining(keys.map((k) => k.id)));

        const listed: string[] = [];
        for (let page = 1; page <= 2; page++) {
          const body = await v1(`/api/v1/executions?page=${page}&size=2`);
          expect(body.total).toBe(3);
          listed.push(...(body.items as { id: string }[]).map((x) => x.id));
        }
        expect(listed).toEqual(ordered(executions, "desc"));

        const pending: string[] = [];
        for (let page = 1; page <= 3; page++) {
          const body = await v1(`/api/v1/approvals?page=${page}&size=1`);
          expect(body.total).toBe(3);
          pending.push(...(body.approvals as Dated[]).map((a) => a.id));
        }
        expect(pending).toEqual(ordered(approvals, "desc"));
      }
    });
    expect(creates, "consumer creates while listing").toEqual([]);

    // The subscription sees a create when one is made.
    const stream = `KV_${e.ns}_workflows_idx`;
    const control = await consumerCreates(e, async () => {
      const made = await e.platform.jsm.consumers.add(stream, { ack_policy: AckPolicy.None });
      await e.platform.jsm.consumers.delete(stream, made.name);
    });
    expect(control.length).toBe(1);
  });
});
