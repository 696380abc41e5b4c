import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { describe, expect, it, onTestFinished } from "vitest";
import { CasConflictError } from "../../errors";
import { newId } from "../../execution/ids";
import { ExecutionSnapshot, type ExecutionStatus } from "../../execution/snapshot";
import { ONE_REPLICA } from "../../nats/placement";
import { StoredDefinitions } from "../../nats/stored-definitions";
import { useNatsConnection } from "@wf/testing/nats-connection";
import { DirectReads, type StoredEntry } from "./direct-reads";
import { JetStreamPublisher } from "./jetstream-publisher";
import { keyToken } from "./key-codec";
import { executionLayout } from "./layouts";
import { leaderLast } from "./leader-reads";
import { openKvStore } from "./open-kv-store";
import { PendingStarts } from "./pending-starts";
import { KvExecutionRepo } from "./execution-repo";

const nats = useNatsConnection();

/**
 * Direct gets answered by a replica that has not applied the latest writes: every record is read
 * from bucket `lagging`, a real bucket holding what such a replica would still hold.
 */
class LaggingReplica extends DirectReads {
  constructor(
    nc: NatsConnection,
    private readonly lagging: string,
  ) {
    super(nc);
  }

  override last(_bucket: string, key: string): Promise<StoredEntry | null> {
    return super.last(this.lagging, key);
  }
}

/**
 * An execution created RUNNING through the store, then moved to `status` by a record write alone
 * (as an executor leaves it when it dies between its record write and its list-entry put, or
 * with the list entry put too), and a repo over the same buckets whose direct gets answer what
 * a lagging replica holds: the record as created.
 */
async function laggingSetup(
  status: ExecutionStatus,
  { entryToo, replicaHolds = "created" }: { entryToo: boolean; replicaHolds?: "created" | "nothing" },
) {
  const ns = `lr${newId()}`;
  const store = await openKvStore(nats.nc, ns, ONE_REPLICA);
  onTestFinished(() => store.close());
  const created = ExecutionSnapshot.parse({
    id: newId(),
    workflowId: "wf",
    workflowName: "wf",
    ownerId: `u${newId()}`,
    triggerSource: "webhook",
    status: "RUNNING",
    totalSteps: 1,
    createdAt: Date.now(),
    vars: {},
    definition: {},
  });
  await store.executions.create(created);
  const kvm = new Kvm(nats.nc);
  const records = await kvm.open(`${ns}_executions`);
  const index = await kvm.open(`${ns}_executions_idx`);
  const token = keyToken(created.id);
  const lagging = await kvm.create(`${ns}_lagging`, { history: 1 });
  if (replicaHolds === "created") await lagging.put(token, (await records.get(token))!.string());

  const moved = { ...created, status, completedAt: Date.now() };
  const revision = await records.put(token, JSON.stringify(moved));
  const [key] = executionLayout.keys(created);
  if (entryToo) await index.put(key!, status);

  const jsm = await jetstreamManager(nats.nc);
  const reads = new LaggingReplica(nats.nc, `${ns}_lagging`);
  const publisher = new JetStreamPublisher(nats.nc);
  const buckets = {
    jsm,
    publisher,
    records,
    recordsBucket: `${ns}_executions`,
    index,
    indexBucket: `${ns}_executions_idx`,
    reads,
  };
  const definitions = new StoredDefinitions(nats.nc, ns);
  const repo = new KvExecutionRepo(buckets, new PendingStarts(jsm, ns, definitions), definitions);
  onTestFinished(() => {
    repo.close();
    reads.close();
    publisher.close();
  });
  return { store, repo, created, index, key: key!, revision, lagging, token };
}

const entryOf = async (index: KV, key: string) => (await index.get(key))?.string();

describe("reads that bound a write go to the stream's leader", () => {
  it("leaderLast reads a key's last message as the leader holds it: a value, a deleted key and one never written", async () => {
    const bucket = `l${newId()}`;
    const kv = await new Kvm(nats.nc).create(bucket, { history: 1 });
    await kv.put("a", JSON.stringify({ n: 1 }));
    await kv.put("a", JSON.stringify({ n: 2 }));
    await kv.put("gone", "{}");
    await kv.delete("gone");
    const jsm = await jetstreamManager(nats.nc);
    const a = await leaderLast(jsm, bucket, "a");
    expect({ operation: a?.operation, revision: a?.revision, value: a?.json() }).toEqual({
      operation: "PUT",
      revision: 2,
      value: { n: 2 },
    });
    expect((await leaderLast(jsm, bucket, "gone"))?.operation).toBe("DEL");
    expect(await leaderLast(jsm, bucket, "never")).toBeNull();
  });

  it("the sweep gives a list entry left RUNNING its record's INTERRUPTED, though a lagging replica still holds the record RUNNING", async () => {
    const { store, repo, created, index, key } = await laggingSetup("INTERRUPTED", { entryToo: false });
    expect((await repo.get(created.id))?.value.status).toBe("RUNNING");
    expect(await entryOf(index, key)).toBe("RUNNING");

    expect((await repo.repairStale(Date.now() + 1, 100, async () => true)).repaired).toBe(1);
    expect(await entryOf(index, key)).toBe("INTERRUPTED");
    const lists = async (status: ExecutionStatus) =>
      (await store.executions.list({ ownerId: created.ownerId, status, page: 1, size: 10 })).total;
    expect([await lists("RUNNING"), await lists("INTERRUPTED")]).toEqual([0, 1]);
  });

  it("a takeover's relist gives the entry the record's status, and never puts back the status a lagging replica still holds", async () => {
    const left = await laggingSetup("INTERRUPTED", { entryToo: false });
    await left.repo.relist(left.created.id);
    expect(await entryOf(left.index, left.key)).toBe("INTERRUPTED");

    const settled = await laggingSetup("INTERRUPTED", { entryToo: true });
    await settled.repo.relist(settled.created.id);
    expect(await entryOf(settled.index, settled.key)).toBe("INTERRUPTED");
  });
});

describe("reads of a record never go back", () => {
  it("a get answers no older than a revision the caller saw, nor than what this process read since", async () => {
    const { repo, created, revision } = await laggingSetup("COMPLETED", { entryToo: true });
    // Nothing tells this process the replica is behind: it answers what the replica holds.
    expect((await repo.get(created.id))?.value.status).toBe("RUNNING");

    const seen = await repo.get(created.id, revision);
    expect({ status: seen?.value.status, version: seen?.version }).toEqual({ status: "COMPLETED", version: revision });
    // The replica still holds RUNNING; this process has read COMPLETED since.
    expect((await repo.get(created.id))?.value.status).toBe("COMPLETED");
  });

  it("a record a replica does not hold yet is read at the leader once its start command is gone, not answered missing", async () => {
    const { repo, created } = await laggingSetup("RUNNING", { entryToo: true, replicaHolds: "nothing" });
    // No start command: created through the store, as an executor creates a record it took.
    expect((await repo.get(created.id))?.value.status).toBe("RUNNING");
  });
});

describe("a replica ahead of the leader", () => {
  it("a record whose write lost is read at the leader until this process writes it: a write the leader never took is not read again", async () => {
    const { store, repo, created, revision, lagging, token } = await laggingSetup("RUNNING", {
      entryToo: true,
      replicaHolds: "nothing",
    });
    // What nats-server 2.9 was seen to answer: a write of a cut-off leader, at a revision the leader never reached.
    const phantom = { ...created, holder: { actor: "cut-off", seq: 1, since: Date.now() } };
    let phantomRevision = 0;
    while (phantomRevision <= revision + 1) phantomRevision = await lagging.put(token, JSON.stringify(phantom));
    const seen = await repo.get(created.id);
    expect({ holder: seen?.value.holder, version: seen?.version }).toEqual({
      holder: phantom.holder,
      version: phantomRevision,
    });

    const mine = { ...created, holder: { actor: "me", seq: 2, since: Date.now() } };
    await expect(repo.update(mine, phantomRevision)).rejects.toBeInstanceOf(CasConflictError);
    for (const attempt of [1, 2]) {
      const read = await repo.get(created.id);
      expect({ attempt, holder: read?.value.holder, version: read?.version }).toEqual({
        attempt,
        holder: null,
        version: revision,
      });
    }
    const leader = await repo.getForWrite(created.id);
    expect(leader?.version).toBe(revision);

    // Other records' writes take the stream past the phantom's revision, as a live cluster's do.
    for (let i = 0; i < 3; i++) await store.executions.create({ ...created, id: newId() });
    const written = await repo.update(mine, revision);
    expect(written).toBeGreaterThan(phantomRevision);
    // Written: reads go to the nearest replica again, which now answers a later write.
    const later = { ...mine, status: "COMPLETED" as const, completedAt: Date.now() };
    let laterRevision = 0;
    while (laterRevision <= written) laterRevision = await lagging.put(token, JSON.stringify(later));
    const after = await repo.get(created.id);
    expect({ status: after?.value.status, version: after?.version }).toEqual({
      status: "COMPLETED",
      version: laterRevision,
    });
  });
});
