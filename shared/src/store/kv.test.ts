import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { TimeoutError, type NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it, onTestFailed, onTestFinished, vi } from "vitest";
import { startExecution } from "../client/commands";
import { CasConflictError, RecordTooLargeError } from "../errors";
import { newId } from "../execution/ids";
import { ExecutionSnapshot } from "../execution/snapshot";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";
import { waitFor } from "@wf/testing";
import { startCommandsIn } from "@wf/testing";
import { approvalOf as approval, runStoreContract, type TestStarts } from "@wf/testing/store-contract";
import { keyToken } from "./kv/key-codec";
import { RECENT_MAX_AGE_MS, RECENT_REFRESH_MS } from "./kv/recent-reads";
import { executionLayout } from "./kv/layouts";
import { JetStreamPublisher } from "./kv/jetstream-publisher";
import { openKvStore } from "./kv/open-kv-store";
import { definitionJson, sharedDefinition } from "../execution/parsed-definitions";
import { ONE_REPLICA } from "../nats/placement";
import { definitionRef, StoredDefinitions } from "../nats/stored-definitions";
import { streamNames, subjects } from "../nats/subjects";
import { openStore } from "./open-store";
import type { Store } from "./port";
import { newWorkflowRecord } from "./new-workflow-record";
import { UserRecord, WorkflowRecord, type ApprovalRecord } from "./records";

let server: NatsServerHandle;
let nc: NatsConnection;
let namespaces = 0;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url, reconnectTimeWait: 100 });
});

afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

type Publish = JetStreamPublisher["publish"];

/** Every store's publishes go through `intercept`, which may call the real one, until the returned spy is restored. */
function interceptPublishes(intercept: (publish: Publish, ...args: Parameters<Publish>) => ReturnType<Publish>) {
  const real: Publish = JetStreamPublisher.prototype.publish;
  return vi.spyOn(JetStreamPublisher.prototype, "publish").mockImplementation(function (
    this: JetStreamPublisher,
    ...args
  ) {
    return intercept(real.bind(this), ...args);
  });
}

/** A namespace of its own for each test, and its buckets (and streams, if made) removed afterwards. */
async function freshStore(): Promise<{
  store: Store;
  namespace: string;
  starts: TestStarts;
  cleanup(): Promise<void>;
}> {
  // The server tells a client only that it failed to make a store, say; the cause is in its log.
  onTestFailed(
    () =>
      void process.stderr.write(
        `nats-server ${server.version} log, last lines:\n${server.log().split("\n").slice(-40).join("\n")}\n`,
      ),
  );
  const namespace = `t${++namespaces}`;
  const store = await openStore({ kind: "kv", nc, namespace });
  const commands = startCommandsIn(nc, namespace);
  const cleanup = async () => {
    await store.close();
    await commands.cleanup();
    const jsm = await jetstreamManager(nc);
    for await (const info of jsm.streams.list()) {
      if (info.config.name.startsWith(`KV_${namespace}_`)) await jsm.streams.delete(info.config.name);
    }
  };
  return {
    store,
    namespace,
    starts: { ns: namespace, publisher: commands.publisher, queued: commands.queued },
    cleanup,
  };
}

runStoreContract("JetStream KV", freshStore);

/** A fresh store, and another on the same buckets over a connection of its own: as another process sees them. */
async function storeAndAnotherProcess(): Promise<{ store: Store; other: Store }> {
  const { store, namespace, cleanup } = await freshStore();
  onTestFinished(cleanup);
  const nc2 = await connect({ servers: server.url });
  onTestFinished(() => nc2.close());
  const other = await openStore({ kind: "kv", nc: nc2, namespace });
  onTestFinished(() => other.close());
  return { store, other };
}

function execution(ownerId: string, over: Partial<ExecutionSnapshot> = {}): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: newId(),
    workflowId: "wf-a",
    workflowName: "demo",
    ownerId,
    triggerSource: "webhook",
    status: "PENDING",
    totalSteps: 1,
    createdAt: Date.now(),
    vars: {},
    definition: {},
    ...over,
  });
}

describe("JetStream KV adapter", () => {
  it("keeps records, versions and lists across a SIGKILL of nats-server", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const done = execution(ownerId, { createdAt: 1 });
    const running = execution(ownerId, { createdAt: 2 });
    await store.executions.create(done);
    const v1 = await store.executions.create(running);
    const finished = { ...done, status: "COMPLETED" as const };
    await store.executions.update(finished, (await store.executions.get(done.id))!.version);
    const v2 = await store.executions.update({ ...running, status: "RUNNING" }, v1);

    await server.kill();
    await server.start();
    const nc2 = await connect({ servers: server.url });
    onTestFinished(() => nc2.close());
    const reopened = await openStore({ kind: "kv", nc: nc2, namespace });

    const back = await reopened.executions.get(running.id);
    expect(back).toEqual({ value: { ...running, status: "RUNNING" }, version: v2 });
    expect(await reopened.executions.list({ ownerId, page: 1, size: 10 })).toEqual({
      items: [{ ...running, status: "RUNNING" }, finished],
      total: 2,
    });
    expect(await reopened.executions.list({ ownerId, status: "COMPLETED", page: 1, size: 10 })).toEqual({
      items: [finished],
      total: 1,
    });
    await expect(reopened.executions.update(running, v1)).rejects.toBeInstanceOf(CasConflictError);
    await reopened.executions.update({ ...running, status: "COMPLETED" }, v2);
    expect((await reopened.executions.list({ ownerId, status: "COMPLETED", page: 1, size: 10 })).total).toBe(2);
    // The shared connection reconnects by itself; the tests after this one need it back.
    await waitFor(() => nc.flush().then(() => true), { what: "the shared connection to reconnect" });
  });

  it("refuses a record over max_payload as RecordTooLargeError, counted in bytes, writing nothing", async () => {
    const { store, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const limit = nc.info!.max_payload - 128;
    const w = (yaml: string): WorkflowRecord => ({
      ...newWorkflowRecord({ ownerId: "u1", yaml, definition: { name: "big" } }),
      id: "w1",
    });
    const refused = await store.workflows.create(w("y".repeat(limit))).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(RecordTooLargeError);
    const { bytes, message } = refused as RecordTooLargeError;
    expect(bytes).toBeGreaterThan(limit);
    expect(message).toBe(
      `workflows/w1 would take ${bytes} bytes stored, over the ${limit} a record may take (the NATS server's max_payload)`,
    );
    expect(await store.workflows.get("w1")).toBeNull();
    // Two-byte characters: under the limit in characters, over it in bytes.
    const version = await store.workflows.create(w("ok"));
    await expect(store.workflows.update(w("ü".repeat(limit / 2)), version)).rejects.toBeInstanceOf(RecordTooLargeError);
    expect((await store.workflows.get("w1"))?.value.yaml).toBe("ok");
  });

  it("skips index keys whose record is gone or no longer matches, and does not count them", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const live = execution(ownerId, { createdAt: 10 });
    const v1 = await store.executions.create(live);
    // What a crash mid-write leaves behind: the key of a record never stored, and a record whose
    // status moved on (RUNNING) while its key still carries the one it left (PENDING).
    const index = await new Kvm(nc).open(`${namespace}_executions_idx`);
    const ghost = execution(ownerId, { createdAt: 20 });
    for (const key of executionLayout.keys(ghost)) await index.put(key, "PENDING");
    const records = await new Kvm(nc).open(`${namespace}_executions`);
    const running = { ...live, status: "RUNNING" as const };
    const v2 = await records.update(keyToken(live.id), JSON.stringify(running), v1);

    const list = (status?: ExecutionSnapshot["status"]) =>
      store.executions.list({ ownerId, ...(status ? { status } : {}), page: 1, size: 10 });
    expect(await list()).toEqual({ items: [running], total: 1 });
    expect(await list("PENDING")).toEqual({ items: [], total: 0 });
    // Missing from its new status until its next change of status puts the key again.
    expect(await list("RUNNING")).toEqual({ items: [], total: 0 });
    const done = { ...running, status: "COMPLETED" as const };
    await store.executions.update(done, v2);
    expect(await list("COMPLETED")).toEqual({ items: [done], total: 1 });
    expect(await list()).toEqual({ items: [done], total: 1 });
  });

  it("an update puts its record's list keys again through transient failures (a cluster electing a leader)", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const pending = execution(ownerId, { createdAt: 10 });
    const v1 = await store.executions.create(pending);
    // A status change puts the execution's list keys again, carrying the new status.
    let failed = 0;
    const publishing = interceptPublishes((publish, subject, ...rest) =>
      subject.includes(`${namespace}_executions_idx.`) && ++failed <= 2
        ? Promise.reject(new TimeoutError())
        : publish(subject, ...rest),
    );
    const running = { ...pending, status: "RUNNING" as const };
    try {
      await store.executions.update(running, v1);
    } finally {
      publishing.mockRestore();
    }
    expect(failed).toBeGreaterThan(2);
    // A page of one: a key left with the old status would be counted in its total, though left out of the items.
    const list = (status: ExecutionSnapshot["status"]) => store.executions.list({ ownerId, status, page: 1, size: 1 });
    expect(await list("PENDING")).toEqual({ items: [], total: 0 });
    expect(await list("RUNNING")).toEqual({ items: [running], total: 1 });
  });

  it("a status write whose answer was lost though it landed is listed under its status once its writer, having read the record, writes again", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const running = execution(ownerId, { createdAt: 10, status: "RUNNING" });
    const v1 = await store.executions.create(running);
    // The record write lands but its answer is lost (a cluster member dying): the caller is told
    // it timed out, and the list keys, put only after an answer, are not put.
    const publishing = interceptPublishes(async (publish, subject, ...rest) => {
      if (!subject.includes(`${namespace}_executions.`)) return publish(subject, ...rest);
      await publish(subject, ...rest);
      throw new TimeoutError();
    });
    const completed = { ...running, status: "COMPLETED" as const, completedSteps: 1 };
    try {
      await expect(store.executions.update(completed, v1)).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      publishing.mockRestore();
    }
    // The writer finds its write there, as a compare-and-set conflict tells it, and writes again.
    const landed = (await store.executions.get(running.id))!;
    expect(landed.value).toEqual(completed);
    await store.executions.update(completed, landed.version);
    const list = (status: ExecutionSnapshot["status"]) => store.executions.list({ ownerId, status, page: 1, size: 10 });
    expect(await list("COMPLETED")).toEqual({ items: [completed], total: 1 });
    expect(await list("RUNNING")).toEqual({ items: [], total: 0 });
  });

  it("relist gives list entries left behind their record's status the record's, and leaves right ones unwritten", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const done = execution(ownerId, { createdAt: 10, status: "COMPLETED" });
    const other = execution(ownerId, { createdAt: 20, status: "FAILED" });
    await store.executions.create(done);
    await store.executions.create(other);
    // Its holder died between the final record write and the list write.
    const index = await new Kvm(nc).open(`${namespace}_executions_idx`);
    const [key] = executionLayout.keys(done);
    await index.put(key!, "RUNNING");
    const list = (status: ExecutionSnapshot["status"]) => store.executions.list({ ownerId, status, page: 1, size: 10 });
    expect(await list("COMPLETED")).toEqual({ items: [], total: 0 });

    const [otherKey] = executionLayout.keys(other);
    const untouched = (await index.get(otherKey!))!.revision;
    await store.executions.relist(done.id);
    await store.executions.relist(other.id);
    await store.executions.relist(newId());
    expect(await list("COMPLETED")).toEqual({ items: [done], total: 1 });
    expect(await list("FAILED")).toEqual({ items: [other], total: 1 });
    expect((await index.get(otherKey!))!.revision).toBe(untouched);
  });

  it("an announce that lands after the executor's first write leaves that write's list entry alone", async () => {
    const { store, starts, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const definition = { name: "late", steps: [{ name: "a", type: "transform", output: "1" }] };
    const id = await startExecution(
      starts.publisher,
      starts.ns,
      { workflow: { id: "wf-a", name: "late", ownerId, version: 1, definition }, triggerSource: "webhook" },
      { store },
    );
    const pending = (await store.executions.get(id))!;
    const running: ExecutionSnapshot = {
      ...pending.value,
      status: "RUNNING",
      startedAt: Date.now(),
      holder: { actor: "a1", seq: 1, since: Date.now() },
    };
    await store.executions.update(running, pending.version);
    // The edge's list entry and its command go out together: the entry may arrive last.
    await store.executions.announce(pending.value);
    const list = (status: ExecutionSnapshot["status"]) => store.executions.list({ ownerId, status, page: 1, size: 10 });
    expect(await list("RUNNING")).toEqual({ items: [running], total: 1 });
    expect(await list("PENDING")).toEqual({ items: [], total: 0 });
  });

  it("an announced start naming its definition by reference is read PENDING with that definition", async () => {
    const { store, namespace, starts, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const definitions = await StoredDefinitions.open(nc, namespace, ONE_REPLICA, { warn: () => undefined }, null);
    const definition = sharedDefinition(
      { name: "by-ref", steps: [{ name: "a", type: "transform", output: "1" }] },
      "o1",
    );
    const workflow = { id: "wf-ref", name: "by-ref", ownerId: `user-${newId()}`, version: 1, definition };
    const id = await startExecution(
      starts.publisher,
      namespace,
      { workflow, triggerSource: "webhook" },
      {
        store,
        definitions,
      },
    );
    const jsm = await jetstreamManager(nc);
    const command = await jsm.streams.getMessage(streamNames(namespace).cmd, {
      last_by_subj: subjects(namespace).execStart(id),
    });
    const carried = command!.json<{ workflow: Record<string, unknown> }>().workflow;
    expect(carried.definition).toBeUndefined();
    expect(carried.definitionRef).toBe(definitionRef(definitionJson(definition)));
    const pending = (await store.executions.get(id))!.value;
    expect({ status: pending.status, definition: pending.definition }).toEqual({ status: "PENDING", definition });

    // Its record, once written, names the definition too, and reads whole in another process.
    const running = { ...pending, status: "RUNNING" as const, holder: { actor: "a1", seq: 1, since: Date.now() } };
    await store.executions.create(running);
    const atRest = await (await new Kvm(nc).open(`${namespace}_executions`)).get(keyToken(id));
    expect(atRest!.json<Record<string, unknown>>()).toMatchObject({ definitionRef: carried.definitionRef });
    expect(atRest!.string()).not.toContain('"definition"');
    const nc2 = await connect({ servers: server.url });
    onTestFinished(() => nc2.close());
    const other = await openStore({ kind: "kv", nc: nc2, namespace });
    onTestFinished(() => other.close());
    expect((await other.executions.get(id))!.value).toEqual(running);
  });

  it("repairStale gives a list entry a status change left behind its record's status", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const running = execution(ownerId, { createdAt: 10, status: "RUNNING" });
    const pending = execution(ownerId, { createdAt: 20 });
    await store.executions.create(running);
    await store.executions.create(pending);
    // The record moved on to RUNNING; its list write was cut short.
    const index = await new Kvm(nc).open(`${namespace}_executions_idx`);
    await index.put(executionLayout.keys(running)[0]!, "PENDING");
    // Pages of one: the stale entry is on no page, but counted in the total.
    const list = (status: ExecutionSnapshot["status"]) => store.executions.list({ ownerId, status, page: 1, size: 1 });
    expect(await list("PENDING")).toEqual({ items: [pending], total: 2 });

    expect(await store.executions.repairStale(Date.now(), 10, () => Promise.resolve(false))).toEqual({
      repaired: 1,
      next: null,
    });
    expect(await list("PENDING")).toEqual({ items: [pending], total: 1 });
    expect(await list("RUNNING")).toEqual({ items: [running], total: 1 });
    expect(await store.executions.get(running.id)).toEqual({ value: running, version: expect.any(Number) });
  });

  it("lists by status the executions of a bucket written before keys carried the status", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const old = execution(ownerId, { createdAt: 10 });
    // The earlier layout: an o. key with an empty value, and an s. key that nothing reads now.
    const records = await new Kvm(nc).open(`${namespace}_executions`);
    const version = await records.create(keyToken(old.id), JSON.stringify(old));
    const index = await new Kvm(nc).open(`${namespace}_executions_idx`);
    const [key] = executionLayout.keys(old);
    await index.put(key!, "");
    await index.put(key!.replace(/^o\.([^.]+)\./, "s.$1.PENDING."), "");
    const fresh = execution(ownerId, { createdAt: 20, status: "RUNNING" });
    await store.executions.create(fresh);

    const list = (status?: ExecutionSnapshot["status"]) =>
      store.executions.list({ ownerId, ...(status ? { status } : {}), page: 1, size: 10 });
    expect(await list()).toEqual({ items: [fresh, old], total: 2 });
    expect(await list("PENDING")).toEqual({ items: [old], total: 1 });
    expect(await list("RUNNING")).toEqual({ items: [fresh], total: 1 });
    const moved = { ...old, status: "COMPLETED" as const };
    await store.executions.update(moved, version);
    expect(await list("PENDING")).toEqual({ items: [], total: 0 });
    expect(await list("COMPLETED")).toEqual({ items: [moved], total: 1 });
  });

  it("stores an execution's outbox without what its events repeat of it, and reads a record written whole as it is", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const e = execution(ownerId);
    const events = [1, 2].map((n) => ({
      type: "step_completed",
      executionId: e.id,
      workflowId: e.workflowId,
      ownerId,
      at: 12,
      id: `${e.id}.${n}`,
      step: "s1",
      data: { output: n },
    }));
    const ended: ExecutionSnapshot = { ...e, status: "COMPLETED", eventSeq: 2, outbox: events };
    const v1 = await store.executions.create(e);
    await store.executions.update(ended, v1);

    const records = await new Kvm(nc).open(`${namespace}_executions`);
    const raw = (await records.get(keyToken(e.id)))!.json<{ outbox: Record<string, unknown>[] }>();
    expect(raw.outbox).toEqual(
      [1, 2].map((n) => ({ type: "step_completed", at: 12, id: `.${n}`, step: "s1", data: { output: n } })),
    );
    const other = await openStore({ kind: "kv", nc, namespace });
    onTestFinished(() => other.close());
    expect((await other.executions.get(e.id))?.value).toEqual(ended);

    // As a version before this form wrote it: every event whole.
    const earlier = { ...ended, id: newId() };
    earlier.outbox = events.map((ev) => ({ ...ev, executionId: earlier.id, id: ev.id.replace(e.id, earlier.id) }));
    await records.create(keyToken(earlier.id), JSON.stringify(earlier));
    expect((await other.executions.get(earlier.id))?.value).toEqual(earlier);
  });

  it("an update at a version this process did not write reads the record's index keys, not its memory", async () => {
    const a = await freshStore();
    onTestFinished(a.cleanup);
    // A second process on the same buckets.
    const b = await openStore({ kind: "kv", nc, namespace: a.namespace });
    const ownerId = `user-${newId()}`;
    const e = execution(ownerId);
    const v1 = await a.store.executions.create(e);
    const v2 = await b.executions.update({ ...e, status: "RUNNING" }, v1);
    const v3 = await b.executions.update({ ...e, status: "AWAITING_APPROVAL" }, v2);
    // `a` last wrote PENDING at v1; the record is AWAITING_APPROVAL at v3.
    await a.store.executions.update({ ...e, status: "COMPLETED" }, v3);
    for (const status of ["PENDING", "RUNNING", "AWAITING_APPROVAL"] as const) {
      expect((await b.executions.list({ ownerId, status, page: 1, size: 10 })).total, status).toBe(0);
    }
    expect((await b.executions.list({ ownerId, status: "COMPLETED", page: 1, size: 10 })).total).toBe(1);
  });
});

describe("JetStream KV adapter: lists under a steady flow of writes", () => {
  it("a list ends while records of the same owner keep being written", async () => {
    const { store, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const owner = `o-${newId()}`;
    for (let i = 0; i < 20; i++) await store.executions.create(execution(owner));
    let writing = true;
    // New executions, and status changes, which replace (purge) index keys a scan may be about to read.
    const writer = async () => {
      while (writing) {
        const e = execution(owner);
        const version = await store.executions.create(e);
        await store.executions.update({ ...e, status: "RUNNING" }, version);
      }
    };
    const writers = Promise.all([writer(), writer(), writer()]);
    try {
      for (let round = 0; round < 10; round++) {
        // nats.js's key scan waits for 5 idle seconds that a steady flow of writes never leaves.
        const listed = await Promise.race([
          store.executions.list({ ownerId: owner, page: 1, size: 200 }),
          new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 4_000).unref()),
        ]);
        expect(listed).not.toBe("hung");
        expect((listed as { total: number }).total).toBeGreaterThanOrEqual(20);
      }
    } finally {
      writing = false;
      await writers;
    }
  });
});

describe("JetStream KV adapter: recent reads", () => {
  it("getRecent sees another process's update and delete within a bounded delay", async () => {
    const a = await freshStore();
    onTestFinished(a.cleanup);
    const b = await openStore({ kind: "kv", nc, namespace: a.namespace });
    onTestFinished(() => b.close());
    const user = UserRecord.parse({
      id: newId(),
      email: `${newId()}@example.com`,
      passwordHash: "x",
      plan: "pro",
      status: "active",
      createdAt: 1,
      updatedAt: 1,
    });
    const v1 = await b.users.create(user);
    // Read twice: the first read starts the watch, later ones may come from memory.
    await waitFor(async () => (await a.store.users.getRecent(user.id))?.version === v1, {
      what: "the user to be read",
    });
    expect(await a.store.users.getRecent(user.id)).toEqual({ value: user, version: v1 });

    const locked = { ...user, status: "locked" as const, updatedAt: 2 };
    const v2 = await b.users.update(locked, v1);
    await waitFor(async () => (await a.store.users.getRecent(user.id))?.version === v2, {
      what: "the update to be seen",
    });
    expect(await a.store.users.getRecent(user.id)).toEqual({ value: locked, version: v2 });

    await b.users.delete(user.id);
    await waitFor(async () => (await a.store.users.getRecent(user.id)) === null, { what: "the delete to be seen" });
  });

  /** Server reads of the `<ns>_users` bucket's records, counted as the requests pass. */
  const countUserReads = (namespace: string) => {
    let n = 0;
    const bucket = `KV_${namespace}_users`;
    const subs = [
      nc.subscribe(`$JS.API.DIRECT.GET.${bucket}.>`),
      nc.subscribe(`$JS.API.DIRECT.GET.${bucket}`),
      nc.subscribe(`$JS.API.STREAM.MSG.GET.${bucket}`),
    ];
    for (const sub of subs)
      void (async () => {
        for await (const _ of sub) n++;
      })();
    onTestFinished(() => subs.forEach((sub) => sub.unsubscribe()));
    return { count: () => n, settle: () => nc.flush() };
  };
  const someUser = () =>
    UserRecord.parse({
      id: newId(),
      email: `${newId()}@example.com`,
      passwordHash: "x",
      plan: "pro",
      status: "active",
      createdAt: 1,
      updatedAt: 1,
    });

  it("getRecent callers that miss together share one server read", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const [warm, user] = [someUser(), someUser()];
    await store.users.create(warm);
    await store.users.create(user);
    // The watch first: reads are kept only once it is live.
    await waitFor(async () => Object.isFrozen(await store.users.getRecent(warm.id)), { what: "a remembered read" });
    const reads = countUserReads(namespace);
    const answers = await Promise.all(Array.from({ length: 20 }, () => store.users.getRecent(user.id)));
    await reads.settle();
    expect(answers.every((a) => a?.value.id === user.id)).toBe(true);
    expect(reads.count()).toBe(1);
  });

  it("a record read often is read again before it expires, so no getRecent after the first waits for the server", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const user = someUser();
    await store.users.create(user);
    await waitFor(async () => Object.isFrozen(await store.users.getRecent(user.id)), { what: "a remembered read" });
    const reads = countUserReads(namespace);
    // Answered without I/O: settled before the event loop's next check phase.
    const fromMemory = async () => {
      let answered = false;
      void store.users.getRecent(user.id).then(() => (answered = true));
      await new Promise((resolve) => setImmediate(resolve));
      return answered;
    };
    const asked = Date.now();
    let waited = 0;
    while (Date.now() - asked < 2.5 * RECENT_MAX_AGE_MS) {
      if (!(await fromMemory())) waited++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await reads.settle();
    expect(waited).toBe(0);
    // Read again in the background about once per RECENT_REFRESH_MS, not on every call.
    expect(reads.count()).toBeGreaterThanOrEqual(2);
    expect(reads.count()).toBeLessThanOrEqual(Math.ceil((2.5 * RECENT_MAX_AGE_MS) / RECENT_REFRESH_MS) + 1);
  });

  it("answers with records that cannot be changed in place, since every caller shares them", async () => {
    const { store, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const user = UserRecord.parse({
      id: newId(),
      email: `${newId()}@example.com`,
      passwordHash: "x",
      plan: "pro",
      status: "active",
      createdAt: 1,
      updatedAt: 1,
    });
    await store.users.create(user);
    await waitFor(async () => Object.isFrozen(await store.users.getRecent(user.id)), { what: "a remembered read" });
    const shared = (await store.users.getRecent(user.id))!;
    expect(() => Object.assign(shared.value, { plan: "free" })).toThrow(TypeError);
    expect((await store.users.get(user.id))!.value.plan).toBe("pro");
  });
});

describe("JetStream KV adapter: chained workflows", () => {
  const chainedAfter = (source: string) =>
    WorkflowRecord.parse({
      id: newId(),
      name: "follower",
      ownerId: "u1",
      yaml: "name: follower\nsteps: []\n",
      definition: {
        name: "follower",
        triggers: [{ type: "DELAYED_COMPLETION", after: source, on: ["COMPLETED"], delay: 1 }],
        steps: [],
      },
      version: 1,
      createdAt: 1,
      updatedAt: 1,
    });

  it("'none' answers held in memory give way at once to this store's writes, and to another process's within a bounded delay", async () => {
    const a = await freshStore();
    onTestFinished(a.cleanup);
    const b = await openStore({ kind: "kv", nc, namespace: a.namespace });
    onTestFinished(() => b.close());
    const source = newId();
    const ids = async () => (await a.store.workflows.listChainedAfter(source)).map((w) => w.id);
    // Asked as each execution's end asks it: the first answers start the watch, later ones may come from memory.
    for (let i = 0; i < 20; i++) expect(await ids()).toEqual([]);

    const mine = chainedAfter(source);
    await a.store.workflows.create(mine);
    expect(await ids()).toEqual([mine.id]);
    await a.store.workflows.delete(mine.id);
    expect(await ids()).toEqual([]);

    for (let i = 0; i < 20; i++) expect(await ids()).toEqual([]);
    const theirs = chainedAfter(source);
    const v1 = await b.workflows.create(theirs);
    await waitFor(async () => (await ids()).length === 1, { what: "another process's chained workflow to be seen" });
    expect(await ids()).toEqual([theirs.id]);
    await b.workflows.update({ ...theirs, version: 2, definition: { name: "follower", steps: [] } }, v1);
    await waitFor(async () => (await ids()).length === 0, { what: "another process's unchained workflow to be seen" });
  });
});

describe("JetStream KV adapter: users", () => {
  it("takes over an email claim whose user was never written (a crash between the two writes)", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const email = `${newId()}@example.com`;
    const claims = await new Kvm(nc).open(`${namespace}_user_emails`);
    await claims.put(keyToken(email), "ghost-user");
    const user = UserRecord.parse({
      id: newId(),
      email,
      passwordHash: "x",
      plan: "pro",
      status: "active",
      createdAt: 1,
      updatedAt: 1,
    });
    const version = await store.users.create(user);
    expect(await store.users.getByEmail(email)).toEqual({ value: user, version });
  });
});

describe("JetStream KV adapter: the execution index", () => {
  it("another process lists a write as soon as it returned: creates, status changes and deletions", async () => {
    const { store, other } = await storeAndAnotherProcess();
    const ownerId = `user-${newId()}`;
    await other.executions.startListing();
    for (let i = 0; i < 5; i++) {
      const e = execution(ownerId, { createdAt: 100 + i });
      const version = await store.executions.create(e);
      expect((await other.executions.list({ ownerId, page: 1, size: 1 })).items).toEqual([e]);
      const done = { ...e, status: "COMPLETED" as const };
      await store.executions.update(done, version);
      const completed = await other.executions.list({ ownerId, status: "COMPLETED", page: 1, size: 10 });
      expect([completed.items[0], completed.total]).toEqual([done, i + 1]);
      expect((await other.executions.list({ ownerId, status: "PENDING", page: 1, size: 10 })).total).toBe(0);
    }
    const newest = (await other.executions.list({ ownerId, page: 1, size: 1 })).items[0]!;
    await store.executions.delete(newest.id);
    const after = await other.executions.list({ ownerId, page: 1, size: 10 });
    expect(after.total).toBe(4);
    expect(after.items.map((e) => e.id)).not.toContain(newest.id);
  });

  it("lists asked together share one request for the index's last sequence, and each sees the writes stored before it asked", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    await store.executions.startListing();
    // The requests as the server routes them, seen from a connection of its own.
    const watcher = await connect({ servers: server.url });
    onTestFinished(() => watcher.close());
    const requests = watcher.subscribe(`$JS.API.STREAM.INFO.KV_${namespace}_executions_idx`);
    await watcher.flush();
    const e = execution(ownerId);
    await store.executions.create(e);
    const pages = await Promise.all(
      Array.from({ length: 10 }, () => store.executions.list({ ownerId, page: 1, size: 10 })),
    );
    for (const page of pages) expect(page).toEqual({ items: [e], total: 1 });
    await watcher.flush();
    expect(requests.getReceived()).toBe(1);
    // A list asked after that one was sent asks again, and sees a write made since.
    const later = execution(ownerId, { createdAt: e.createdAt + 1 });
    await store.executions.create(later);
    expect((await store.executions.list({ ownerId, page: 1, size: 10 })).items).toEqual([later, e]);
    await watcher.flush();
    expect(requests.getReceived()).toBe(2);
  });
});

describe("JetStream KV adapter: the approval lists' view", () => {
  it("another process lists approvals as soon as a write returned: creates, decisions and deletions", async () => {
    const { store, other } = await storeAndAnotherProcess();
    const ownerId = `user-${newId()}`;
    const made: ApprovalRecord[] = [];
    for (let i = 0; i < 4; i++) {
      const a = approval(ownerId, { executionId: `exec-${ownerId}`, createdAt: 100 + i });
      const version = await store.approvals.create(a);
      made.push(a);
      expect(await other.approvals.list({ ownerId, page: 1, size: 1 })).toEqual({ items: [a], total: i + 1 });
      const decided = { ...a, status: "APPROVED" as const, decidedAt: 200 + i, decidedBy: "u1" };
      await store.approvals.update(decided, version);
      made[i] = decided;
      expect(await other.approvals.list({ ownerId, status: "APPROVED", page: 1, size: 10 })).toEqual({
        items: made.toReversed(),
        total: i + 1,
      });
      expect(await other.approvals.list({ ownerId, status: "PENDING", page: 1, size: 10 })).toEqual({
        items: [],
        total: 0,
      });
    }
    await store.approvals.delete(made[2]!.id);
    const kept = [made[3], made[1], made[0]];
    expect(await other.approvals.list({ ownerId, page: 1, size: 10 })).toEqual({ items: kept, total: 3 });
    expect(await other.approvals.list({ ownerId, status: "APPROVED", page: 1, size: 10 })).toEqual({
      items: kept,
      total: 3,
    });
    // The execution's own list is a key scan, which a removal's marker does not fool.
    expect(await other.approvals.listByExecution(made[0]!.executionId)).toEqual(kept.toReversed());
  });

  it("approval pages, each from the lists' view, add up to the whole list, which a store opened afterwards builds from the bucket", async () => {
    const { store, namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    // Written out of order, two to a millisecond: the view sorts by time, then id, as a key scan
    // does; some ids need escaping in a key, and sort as they are, not as escaped.
    const all = Array.from({ length: 23 }, (_, i) =>
      approval(ownerId, {
        createdAt: 1_000 + Math.floor(((i * 7) % 23) / 2),
        status: i % 3 === 0 ? "REJECTED" : "PENDING",
        ...(i % 4 === 0 ? { id: `${i % 8 === 0 ? "ä" : "~"}.${newId()}` } : {}),
      }),
    );
    await Promise.all(all.map((a) => store.approvals.create(a)));
    await store.approvals.create(approval(`user-${newId()}`));
    const newestFirst = all.toSorted((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const later = await openStore({ kind: "kv", nc, namespace });
    onTestFinished(() => later.close());
    for (const s of [store, later]) {
      for (const status of [undefined, "PENDING", "REJECTED"] as const) {
        const expected = newestFirst.filter((a) => status === undefined || a.status === status);
        const pages = await Promise.all(
          [1, 2, 3, 4, 5].map((page) => s.approvals.list({ ownerId, ...(status ? { status } : {}), page, size: 5 })),
        );
        expect(pages.flatMap((p) => p.items)).toEqual(expected);
        expect(pages.map((p) => p.total)).toEqual(pages.map(() => expected.length));
      }
    }
  });
});

/** The messages a namespace's approval index holds, per subject. */
function approvalIndexSubjects(namespace: string): () => Promise<Record<string, number>> {
  return async () =>
    (await (await jetstreamManager(nc)).streams.info(`KV_${namespace}_approvals_idx`, { subjects_filter: ">" })).state
      .subjects ?? {};
}

/** A fresh namespace's store, its markers purged `markerPurgeMs` after a removal. */
async function storePurgingMarkersAfter(
  markerPurgeMs: number,
): Promise<{ namespace: string; store: Store; subjects(): Promise<Record<string, number>> }> {
  const { namespace, cleanup } = await freshStore();
  onTestFinished(cleanup);
  const store = await openKvStore(nc, namespace, ONE_REPLICA, { markerPurgeMs });
  onTestFinished(() => store.close());
  return { namespace, store, subjects: approvalIndexSubjects(namespace) };
}

describe("JetStream KV adapter: the delete markers of followed lists", () => {
  it("a removed approval's keys are marked deleted for followers, then purged after the delay; a key put again since stays", async () => {
    // Long enough that the markers are still there when looked at below, on a machine busy with other test files.
    const { namespace, store, subjects } = await storePurgingMarkersAfter(1_500);
    const ownerId = `user-${newId()}`;
    const gone = approval(ownerId, { createdAt: 100 });
    const back = approval(ownerId, { createdAt: 200 });
    await Promise.all([store.approvals.create(gone), store.approvals.create(back)]);
    const keys = Object.keys(await subjects());
    expect(keys.length).toBeGreaterThan(1);

    await store.approvals.delete(gone.id);
    await store.approvals.delete(back.id);
    await store.approvals.create(back);
    // Each key holds one message now: the markers of `gone`, and `back`'s keys put again after theirs.
    expect(Object.values(await subjects())).toEqual(keys.map(() => 1));
    const kvm = new Kvm(nc);
    const index = await kvm.open(`${namespace}_approvals_idx`);
    const operations = async () =>
      Promise.all(
        keys.map(async (k) => (await index.get(k.slice(`$KV.${namespace}_approvals_idx.`.length)))?.operation),
      );
    expect((await operations()).toSorted()).toEqual(keys.map((_, i) => (i < keys.length / 2 ? "DEL" : "PUT")));

    await waitFor(async () => Object.keys(await subjects()).length === keys.length / 2, {
      timeoutMs: 5_000,
      what: "the markers to be purged",
    });
    expect(await operations()).not.toContain("DEL");
    const later = await openStore({ kind: "kv", nc, namespace });
    onTestFinished(() => later.close());
    expect(await later.approvals.list({ ownerId, page: 1, size: 10 })).toEqual({ items: [back], total: 1 });
  });

  it("a view built once the bucket's last messages, delete markers, were purged lists what is left", async () => {
    const { namespace, store, subjects } = await storePurgingMarkersAfter(200);
    const ownerId = `user-${newId()}`;
    const [gone, kept] = [approval(ownerId, { createdAt: 100 }), approval(ownerId, { createdAt: 200 })];
    await store.approvals.create(kept);
    const keptKeys = Object.keys(await subjects()).length;
    // Removed last: its markers are the bucket's last messages, and go after the delay.
    await store.approvals.create(gone);
    await store.approvals.delete(gone.id);
    await waitFor(async () => Object.keys(await subjects()).length === keptKeys, {
      timeoutMs: 5_000,
      what: "the markers to be purged",
    });
    const later = await openStore({ kind: "kv", nc, namespace });
    onTestFinished(() => later.close());
    expect(await later.approvals.list({ ownerId, page: 1, size: 10 })).toEqual({ items: [kept], total: 1 });
  });

  it("a view that meets a marker its remover left (it stopped before the purge) purges it, and lists the same", async () => {
    const { namespace, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const indexSubjects = approvalIndexSubjects(namespace);
    const subjects = async () => Object.keys(await indexSubjects());
    const ownerId = `user-${newId()}`;
    const [gone, kept] = [approval(ownerId, { createdAt: 100 }), approval(ownerId, { createdAt: 200 })];
    const remover = await openKvStore(nc, namespace, ONE_REPLICA, { markerPurgeMs: 3_600_000 });
    await Promise.all([remover.approvals.create(gone), remover.approvals.create(kept)]);
    const keysOfBoth = (await subjects()).length;
    await remover.approvals.delete(gone.id);
    const removedAt = Date.now();
    await remover.close();
    expect((await subjects()).length).toBe(keysOfBoth);

    await waitFor(() => Date.now() - removedAt > 300, { what: "the markers to be older than the reader's bound" });
    const reader = await openKvStore(nc, namespace, ONE_REPLICA, { staleMarkerMs: 300 });
    onTestFinished(() => reader.close());
    expect(await reader.approvals.list({ ownerId, page: 1, size: 10 })).toEqual({ items: [kept], total: 1 });
    await waitFor(async () => (await subjects()).length === keysOfBoth / 2, {
      timeoutMs: 5_000,
      what: "the markers left behind to be purged",
    });
    const again = await openStore({ kind: "kv", nc, namespace });
    onTestFinished(() => again.close());
    expect(await again.approvals.list({ ownerId, page: 1, size: 10 })).toEqual({ items: [kept], total: 1 });
  });
});

describe("JetStream KV adapter: finished executions in lists", () => {
  it("a list shows a finished execution as it is now after another process changed its status, and frozen", async () => {
    const { store, other } = await storeAndAnotherProcess();
    const ownerId = `user-${newId()}`;
    const e = execution(ownerId, { status: "COMPLETED", completedSteps: 1 });
    const version = await store.executions.create(e);
    // Listed often, as pollers do: the later lists may answer from memory.
    for (let i = 0; i < 5; i++)
      expect((await other.executions.list({ ownerId, page: 1, size: 10 })).items).toEqual([e]);
    const listed = (await other.executions.list({ ownerId, page: 1, size: 10 })).items[0]!;
    expect(() => Object.assign(listed, { status: "RUNNING" })).toThrow(TypeError);

    const changed = { ...e, status: "FAILED" as const, error: "changed by another process" };
    await store.executions.update(changed, version);
    expect((await other.executions.list({ ownerId, page: 1, size: 10 })).items).toEqual([changed]);
    expect((await other.executions.list({ ownerId, status: "COMPLETED", page: 1, size: 10 })).total).toBe(0);
    expect((await other.executions.list({ ownerId, status: "FAILED", page: 1, size: 10 })).items).toEqual([changed]);
  });
});

describe("JetStream KV adapter: the execution index across a restart", () => {
  it("one store keeps listing across a SIGKILL of nats-server, writes made after it included", async () => {
    const { store, cleanup } = await freshStore();
    onTestFinished(cleanup);
    const ownerId = `user-${newId()}`;
    const before = execution(ownerId, { createdAt: 1 });
    await store.executions.create(before);
    expect((await store.executions.list({ ownerId, page: 1, size: 10 })).items).toEqual([before]);

    await server.kill();
    await server.start();
    await waitFor(() => nc.flush().then(() => true), { what: "the shared connection to reconnect" });
    const after = execution(ownerId, { createdAt: 2 });
    await waitFor(
      () =>
        store.executions.create(after).then(
          () => true,
          () => undefined,
        ),
      { what: "a write after the restart" },
    );
    const listed = await waitFor(
      () =>
        store.executions.list({ ownerId, page: 1, size: 10 }).then(
          (page) => (page.total === 2 ? page : undefined),
          () => undefined,
        ),
      { what: "the list to show both" },
    );
    expect(listed.items).toEqual([after, before]);
  });
});
