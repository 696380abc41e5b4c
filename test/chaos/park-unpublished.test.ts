import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutionEvent, ExecutionSnapshot } from "@wf/shared/execution";
import { streamNames, subjects } from "@wf/shared/nats";
import { useNatsServer } from "@wf/testing/nats-connection";
import { run, startRuntime, testConfig, waitFor, waitForStatus, type InProcessRuntime } from "../support/runtime";

/**
 * A holder that died between a write and the publish that follows it leaves events only in the record's outbox: the
 * executor that takes the execution up next (a resume, a takeover) publishes them before its first write replaces it
 * (docs/architecture.md, "Snapshots first, then events").
 */
const nats = useNatsServer();
let rt: InProcessRuntime;

beforeAll(async () => {
  // Waits park, however short: each wakes by a resume command.
  rt = await startRuntime(testConfig(nats.server, { WF_HOLD_WAIT_MS: "0" }), { approvals: false });
});
afterAll(async () => {
  await rt?.stop();
});

/** An hour's wait: parked, and woken here by the commands the tests publish (a timer not due parks it again). */
const PARKS = `
name: parks
steps:
  - { name: first, type: transform, output: 1 }
  - { name: nap, type: wait, seconds: 3600 }
`;

/** The ids of the execution's events in the stream, in its order, each as often as it is stored. */
async function storedIds(id: string): Promise<string[]> {
  const ids: string[] = [];
  const filter = subjects(rt.ns).eventFilter({ executionId: id });
  for (let seq = 1; ;) {
    const m = await rt.platform.jsm.streams.getMessage(streamNames(rt.ns).evt, { seq, next_by_subj: filter } as never);
    if (!m) return ids;
    ids.push(m.json<ExecutionEvent>().id);
    seq = m.seq + 1;
  }
}

const numbered = (id: string, n: number) => Array.from({ length: n }, (_, i) => `${id}.${i + 1}`);

/** The record once its last write's events are all in the stream (and it is parked, where `parked`). */
async function published(id: string, what: string, parked = false): Promise<ExecutionSnapshot> {
  return waitFor(
    async () => {
      const snap = (await rt.platform.store.executions.get(id))?.value;
      if (!snap || (parked && !snap.outbox.some((e) => e.type === "exec_parked"))) return undefined;
      const stored = new Set(await storedIds(id));
      return snap.outbox.every((e) => stored.has(e.id)) ? snap : undefined;
    },
    { what },
  );
}

/** A parked execution whose holder is taken to have died after writing `unpublished` events, before publishing them. */
async function parkedThenDied(holder: ExecutionSnapshot["holder"]): Promise<{ id: string; unpublished: string[] }> {
  const { store } = rt.platform;
  const id = await run(rt.platform, PARKS);
  expect((await published(id, "the park's events", true)).holder).toBeNull();
  const v = (await store.executions.getForWrite(id))!;
  // Its park written again, with events numbered after those in the stream, which never left the dying process.
  const outbox = v.value.outbox.map((e, i) => ({ ...e, id: `${id}.${v.value.eventSeq + 1 + i}`, at: Date.now() }));
  await store.executions.update({ ...v.value, holder, eventSeq: v.value.eventSeq + outbox.length, outbox }, v.version);
  return { id, unpublished: outbox.map((e) => e.id) };
}

/** Waits until the execution is parked again by a write that replaced `ids`' outbox, then returns what the stream holds. */
async function parkedAgain(id: string, ids: string[]): Promise<{ snap: ExecutionSnapshot; stored: string[] }> {
  return waitFor(
    async () => {
      const snap = (await rt.platform.store.executions.get(id))!.value;
      if (snap.holder !== null || snap.outbox.some((e) => ids.includes(e.id))) return undefined;
      const stored = await storedIds(id);
      return snap.outbox.every((e) => stored.includes(e.id)) ? { snap, stored } : undefined;
    },
    { what: "the execution parked again, its events stored" },
  );
}

describe("the outbox of a park whose holder died before publishing it", () => {
  it("is published once by the executor that resumes the execution, before its write replaces it", async () => {
    const { id, unpublished } = await parkedThenDied(null);
    expect(await storedIds(id)).not.toContain(unpublished[0]);
    const cmd = { executionId: id, reason: "timer", stepPath: "nap" };
    await rt.platform.js.publish(subjects(rt.ns).execResume(id), JSON.stringify(cmd));
    const { snap, stored } = await parkedAgain(id, unpublished);
    expect(stored).toEqual(numbered(id, snap.eventSeq));
  });

  it("is published once by the executor that takes over from its dead holder", async () => {
    const gone = { actor: "executor-gone", seq: 1_000_000, since: Date.now() };
    const { id, unpublished } = await parkedThenDied(gone);
    const cmd = { executionId: id, reason: "takeover", from: { actor: gone.actor, seq: gone.seq } };
    await rt.platform.js.publish(subjects(rt.ns).execResume(id), JSON.stringify(cmd));
    const { snap, stored } = await parkedAgain(id, unpublished);
    expect(stored).toEqual(numbered(id, snap.eventSeq));
  });
});

describe("parks and resumes that publish their events as they go", () => {
  it("store every event once, and a resume in the process that parked sends none of the park's events again", async () => {
    // Every publish on the execution's subjects, each event's id as often as it is sent (the stream drops duplicates).
    const sent = new Map<string, number>();
    const sub = rt.platform.nc.subscribe(`${rt.ns}.evt.>`, {
      callback: (_err, m) => {
        const e = m.json<ExecutionEvent>();
        if (e.type === "exec_parked") sent.set(e.id, (sent.get(e.id) ?? 0) + 1);
      },
    });
    await rt.platform.nc.flush();
    try {
      const id = await run(
        rt.platform,
        `
name: naps
steps:
  - { name: a, type: wait, seconds: 0.2 }
  - { name: b, type: wait, seconds: 0.2 }
  - { name: c, type: wait, seconds: 0.2 }
`,
      );
      const ended = await waitForStatus(rt.platform, id);
      expect(ended.status).toBe("COMPLETED");
      await published(id, "the final events");
      expect(await storedIds(id)).toEqual(numbered(id, ended.eventSeq));
      await rt.platform.nc.flush();
      expect([...sent.values()]).toEqual([1, 1, 1]);
    } finally {
      sub.unsubscribe();
    }
  });
});
