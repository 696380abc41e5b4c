import { Kvm } from "@nats-io/kv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@wf/shared/config";
import {
  changeBreakpoints,
  DebugRequest,
  ExecutionSnapshot,
  newDebugState,
  newId,
  resultLimits,
} from "@wf/shared/execution";
import {
  definitionsBucket,
  DUPLICATE_WINDOW_MS,
  ONE_REPLICA,
  StoredDefinitions,
  streamNames,
  subjects,
} from "@wf/shared/nats";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { JetStreamPublisher } from "@wf/shared/store";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";
import { Committer } from "./committer";
import { CancelledError } from "./signals";

let server: NatsServerHandle;
let platform: Platform;
let events: JetStreamPublisher;
const ns = `c${newId().slice(-10)}`;

beforeAll(async () => {
  server = await startNatsServer();
  platform = await openPlatform(
    loadConfig({ NATS_URL: server.url, WF_NAMESPACE: ns, LOG_LEVEL: "error" }),
    "committer-test",
  );
  events = new JetStreamPublisher(platform.nc);
});
afterAll(async () => {
  events?.close();
  await platform?.close();
  await server?.stop();
});

async function created(extra: Record<string, unknown> = {}): Promise<Committer> {
  const snap = ExecutionSnapshot.parse({
    ...extra,
    id: newId(),
    workflowId: "w1",
    workflowName: "w",
    ownerId: "o1",
    triggerSource: "open_api",
    status: "RUNNING",
    totalSteps: 1,
    createdAt: Date.now(),
    vars: {},
    definition: { name: "w", steps: [] },
  });
  const c = new Committer(snap, 0, platform.store, events, ns, resultLimits(platform.nc.info!.max_payload));
  c.emit("exec_started");
  await c.create();
  return c;
}

async function lastEvent(c: Committer, type: string) {
  const s = c.snap;
  const m = await platform.jsm.streams.getMessage(streamNames(ns).evt, {
    last_by_subj: subjects(ns).event(s.ownerId, s.workflowId, s.id, type),
  });
  return m!.json<{ data: Record<string, unknown> }>();
}

describe("Committer: every write and event fits in a NATS message", () => {
  it("events of one write that would not fit beside the record have their values slimmed; the record is written, every event published", async () => {
    const c = await created();
    // 40 values of 60 KB each: under an event's 64 KB, 2.4 MB together, as branches finishing at once could pile up.
    for (let i = 0; i < 40; i++) c.emit("step_completed", `s${i}`, { output: "v".repeat(60_000), attempts: 1 });
    await c.settle();
    const stored = (await platform.store.executions.get(c.snap.id))!.value;
    expect(stored.outbox).toHaveLength(40);
    for (const e of stored.outbox) expect(e.data).toEqual({ output: { truncated: true, bytes: 60_002 }, attempts: 1 });
    expect((await lastEvent(c, "step_completed")).data).toEqual({
      output: { truncated: true, bytes: 60_002 },
      attempts: 1,
    });
  });

  it("a few large values stay whole in their events, up to 64 KB each", async () => {
    const c = await created();
    c.emit("step_completed", "a", { output: "w".repeat(60_000) });
    c.emit("step_completed", "b", { output: "w".repeat(70_000) });
    await c.settle();
    const [a, b] = (await platform.store.executions.get(c.snap.id))!.value.outbox;
    expect(a!.data.output).toBe("w".repeat(60_000));
    expect(b!.data.output).toEqual({ truncated: true, bytes: 70_002 });
  });

  it("a live event's values are capped too: a 2 MB batch of log lines is published as a marker, not refused", async () => {
    const c = await created();
    c.publishLive("step_log", "s", `${c.snap.id}.log.s.1.1`, { attempt: 1, lines: ["x".repeat(2_000_000)] });
    await c.settle();
    expect((await lastEvent(c, "step_log")).data).toEqual({ attempt: 1, lines: { truncated: true, bytes: 2_000_004 } });
  });
});

describe("Committer: the events awaiting a write", () => {
  it("counts them full once their JSON passes its share of the record, never later, and at most 16 bytes an event sooner", async () => {
    const c = await created();
    const share = c.limits.outboxBytes;
    for (let i = 0; !c.outboxFull; i++) {
      if (i % 3 === 0) c.emit("step_started", `each[${i}].ünï`, { attempt: i });
      else if (i % 3 === 1)
        c.emit("step_completed", "s", { output: { text: 'é"\n'.repeat(200), n: i }, duration: 1.5 });
      else c.emit("exec_parked", undefined, { status: "RUNNING", waitingOn: null, ok: true });
    }
    await c.flush();
    const sizes = c.snap.outbox.map((e) => Buffer.byteLength(JSON.stringify(e)));
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(total - sizes.at(-1)!).toBeLessThanOrEqual(share);
    expect(total).toBeGreaterThan(share - 16 * sizes.length);
  });
});

describe("Committer: what others write beside the holder", () => {
  it("a holder's write that finds a cancel written beside it is not made: the cancel is thrown, with its reason", async () => {
    const c = await created({ holder: { actor: "me", seq: 1, since: Date.now() } });
    const theirs = (await platform.store.executions.get(c.snap.id))!;
    theirs.value.cancelRequested = true;
    theirs.value.cancelReason = "execution aborted in the debugger by ada";
    const flagged = await platform.store.executions.update(theirs.value, theirs.version);

    c.emit("step_completed", "a", { status: "COMPLETED" });
    c.emit("exec_completed", undefined, { status: "COMPLETED" });
    c.snap.status = "COMPLETED";
    const thrown = await c.settle().catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(CancelledError);
    expect((thrown as Error).message).toBe("execution aborted in the debugger by ada");
    expect(c.snap).toMatchObject({ cancelRequested: true, cancelReason: "execution aborted in the debugger by ada" });
    // Nothing written over the cancel: the record is as the cancel left it.
    expect((await platform.store.executions.get(c.snap.id))!.version).toBe(flagged);

    // The end it would have written is taken back; its other events go with the cancel's write.
    c.withdraw(new Set(["exec_completed"]));
    c.snap.status = "CANCELLED";
    c.emit("exec_cancelled", undefined, { status: "CANCELLED" });
    await c.settle();
    const stored = (await platform.store.executions.get(c.snap.id))!.value;
    expect(stored).toMatchObject({ status: "CANCELLED", cancelRequested: true });
    expect(stored.outbox.map((e) => e.type)).toEqual(["step_completed", "exec_cancelled"]);
  });

  it("a debug run's holder takes a pause's claim and new breakpoints written beside it, and keeps its own changes", async () => {
    const debug = newDebugState(
      DebugRequest.parse({
        breakpoints: [
          { type: "before_step", step: "a" },
          { id: "w", type: "watch", expression: "vars.x" },
        ],
      }),
    );
    const c = await created({ holder: { actor: "me", seq: 1, since: Date.now() }, debug });
    const theirs = (await platform.store.executions.get(c.snap.id))!;
    const claim = { id: "claim1", pauseId: "p1", command: "continue" as const, body: {}, by: "ada", at: Date.now() };
    theirs.value.debug = {
      ...theirs.value.debug!,
      claimed: claim,
      // `w` redefined: what the holder counted under it is not the new breakpoint's.
      breakpoints: [
        { id: "bp9", type: "after_step", step: "b", enabled: true },
        { id: "w", type: "watch", expression: "vars.y", enabled: true },
      ],
      breakpointsBy: "ada",
      breakpointsRevision: 1,
    };
    await platform.store.executions.update(theirs.value, theirs.version);

    c.snap.debug!.hits = { bp1: 1, w: 2 };
    c.snap.debug!.watched = { w: { hash: "h", value: 1 } };
    c.emit("debug_paused", "a");
    await c.settle();
    const stored = (await platform.store.executions.get(c.snap.id))!.value;
    expect(stored.debug).toMatchObject({
      claimed: claim,
      breakpoints: [{ id: "bp9" }, { id: "w" }],
      breakpointsRevision: 1,
      breakpointsAnnounced: 1,
    });
    expect([stored.debug!.hits, stored.debug!.watched]).toEqual([{ bp1: 1 }, {}]);
    // The replacement is announced by the holder, numbered after its own event.
    expect(stored.outbox.map((e) => [e.type, e.id, e.data])).toEqual([
      ["debug_paused", `${c.snap.id}.2`, {}],
      [
        "debug_breakpoints",
        `${c.snap.id}.3`,
        {
          by: "ada",
          breakpoints: [
            { id: "bp9", type: "after_step", step: "b", enabled: true },
            { id: "w", type: "watch", expression: "vars.y", enabled: true },
          ],
        },
      ],
    ]);
  });
  it.each([
    ["a holder's last write, which finds them beside it", "holder", "step_completed", "exec_completed"],
    ["a guest's write that ends the parked run (an abort)", "guest", "debug_resumed", "exec_cancelled"],
  ] as const)(
    "breakpoints replaced before %s are announced ahead of its end: followers stop at the end event",
    async (_, role, event, end) => {
      const debug = newDebugState(DebugRequest.parse({ breakpoints: [{ type: "before_step", step: "a" }] }));
      const holder = role === "holder" ? { actor: "me", seq: 1, since: Date.now() } : null;
      const c = await created({ holder, debug });
      // Replaced on the record, its message not handled yet (or never published: a 503 after the write).
      const breakpoints = [{ id: "new", type: "after_step" as const, step: "b" }];
      expect(await changeBreakpoints(platform.store, c.snap.id, { breakpoints, revision: 0, by: "ada" })).toMatchObject(
        {
          ok: true,
        },
      );
      const read = (await platform.store.executions.getForWrite(c.snap.id))!;
      const last =
        role === "holder" ? c : new Committer(read.value, read.version, platform.store, events, ns, c.limits, role);
      last.emit(event, "a");
      last.snap.status = end === "exec_completed" ? "COMPLETED" : "CANCELLED";
      last.snap.holder = null;
      last.emit(end);
      await last.settle();
      const id = c.snap.id;
      expect((await platform.store.executions.get(id))!.value.outbox.map((e) => [e.type, e.id])).toEqual([
        [event, `${id}.2`],
        ["debug_breakpoints", `${id}.3`],
        [end, `${id}.4`],
      ]);
      expect((await lastEvent(c, "debug_breakpoints")).data).toMatchObject({ by: "ada", breakpoints: [{ id: "new" }] });
    },
  );
});

describe("Committer: the outbox a guest's or a resume's write replaces", () => {
  /** The ids of the execution's events in the stream, in its order, each as often as it is stored. */
  async function storedIds(id: string): Promise<string[]> {
    const ids: string[] = [];
    const filter = subjects(ns).eventFilter({ executionId: id });
    for (let seq = 1; ;) {
      // nats.js types `next_by_subj` for direct gets only; STREAM.MSG.GET takes it (event-stream.ts).
      const query = { seq, next_by_subj: filter };
      const m = await platform.jsm.streams.getMessage(streamNames(ns).evt, query);
      if (!m) return ids;
      ids.push(m.json<{ id: string }>().id);
      seq = m.seq + 1;
    }
  }

  it("publishes the events its holder wrote and died before publishing, and nothing twice", async () => {
    const c = await created({ holder: { actor: "me", seq: 1, since: Date.now() } });
    await c.settle();
    // The holder parks the run: its write lands, then it dies before its events go out (they go nowhere).
    const read = (await platform.store.executions.getForWrite(c.snap.id))!;
    const dying = new Committer(read.value, read.version, platform.store, { publishAll: async () => {} }, ns, c.limits);
    dying.snap.holder = null;
    dying.emit("step_completed", "a", { status: "COMPLETED", output: 1 });
    dying.emit("exec_parked", undefined, { status: "RUNNING" });
    await dying.flush();

    // Two guests' writes (a debugger's command, a cancel) follow, each on the record it reads.
    for (const type of ["debug_edited", "exec_cancelled"]) {
      const v = (await platform.store.executions.getForWrite(c.snap.id))!;
      const guest = new Committer(v.value, v.version, platform.store, events, ns, c.limits, "guest");
      guest.emit(type);
      await guest.settle();
    }
    const id = c.snap.id;
    expect(await storedIds(id)).toEqual([1, 2, 3, 4, 5].map((n) => `${id}.${n}`));
  });

  it("a resume's first write publishes the events its parking holder died before publishing, and nothing twice", async () => {
    const c = await created({ holder: { actor: "me", seq: 1, since: Date.now() } });
    await c.settle();
    const read = (await platform.store.executions.getForWrite(c.snap.id))!;
    const dying = new Committer(read.value, read.version, platform.store, { publishAll: async () => {} }, ns, c.limits);
    dying.snap.holder = null;
    dying.emit("step_waiting", "a", { until: Date.now() + 60_000 });
    dying.emit("exec_parked", undefined, { status: "RUNNING" });
    await dying.flush();

    // Another executor takes the parked execution up (its timer fired) and writes its hold.
    const v = (await platform.store.executions.getForWrite(c.snap.id))!;
    const resumed = new Committer(v.value, v.version, platform.store, events, ns, c.limits);
    resumed.snap.holder = { actor: "other", seq: 2, since: Date.now() };
    resumed.emit("step_started", "b");
    await resumed.settle();
    const id = c.snap.id;
    expect(await storedIds(id)).toEqual([1, 2, 3, 4].map((n) => `${id}.${n}`));
  });

  it.each([
    ["a guest's write", "guest", "exec_cancelled"],
    ["a resume's or a takeover's first write", "holder", "step_started"],
  ] as const)(
    "%s takes an outbox written past half the stream's duplicate window as published: sent again, it could be stored twice",
    async (_, role, type) => {
      const c = await created();
      c.emit("exec_parked", undefined, { status: "RUNNING" });
      await c.settle();
      const v = (await platform.store.executions.getForWrite(c.snap.id))!;
      for (const e of v.value.outbox) e.at -= DUPLICATE_WINDOW_MS / 2;
      const sent: string[] = [];
      const spy = {
        publishAll: (messages: Parameters<JetStreamPublisher["publishAll"]>[0]) => {
          sent.push(...messages.map((m) => m.opts!.msgID!));
          return events.publishAll(messages);
        },
      };
      const next = new Committer(v.value, v.version, platform.store, spy, ns, c.limits, role);
      next.emit(type);
      await next.settle();
      expect(sent).toEqual([`${c.snap.id}.3`]);
    },
  );
});

describe("Committer: an execution's large variables", () => {
  async function storedValues(): Promise<string[]> {
    const kv = await new Kvm(platform.nc).open(definitionsBucket(ns));
    const values: string[] = [];
    for await (const key of await kv.keys()) values.push((await kv.get(key))!.string());
    return values;
  }

  it("are named by reference from the record's second write, masked first", async () => {
    // As the executor opens it before it runs anything.
    await StoredDefinitions.open(platform.nc, ns, ONE_REPLICA, { warn: () => undefined }, null);
    const secret = `pw-${newId()}`;
    const c = await created();
    c.masker.add([secret]);
    // As a debugger's edit sets them, a secret's value pasted in.
    const notes = `${"n".repeat(20_000)} ${secret} ${newId()}`;
    c.snap.vars = { notes };
    const written: string[] = [];
    const sub = platform.nc.subscribe(`$KV.${ns}_executions.>`, {
      callback: (_e, m) => {
        written.push(m.string());
      },
    });
    c.touch();
    await c.flush();
    await platform.nc.flush();
    sub.unsubscribe();
    expect(written.filter((json) => json.includes(c.snap.id))).toEqual([expect.stringContaining('"varsRef":')]);
    const masked = JSON.stringify({ notes: notes.replace(secret, "***") });
    expect((await storedValues()).filter((json) => json.includes('"notes":'))).toEqual([masked]);
    expect((await storedValues()).join()).not.toContain(secret);
    const read = (await platform.store.executions.get(c.snap.id))!.value;
    expect(JSON.stringify(read.vars)).toBe(masked);
  });
});
