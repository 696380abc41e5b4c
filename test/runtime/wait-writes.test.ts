import { headers, type Msg } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type ExecutionSnapshot } from "@wf/shared/execution";
import type { ResumeCommand } from "@wf/shared/messages";
import { streamNames, subjects, TIMER_DUE_HEADER } from "@wf/shared/nats";
import { newWorkflowRecord } from "@wf/shared/store";
import { useNatsServer } from "@wf/testing/nats-connection";
import {
  definitionOf,
  run,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";

/**
 * How often a course of waits writes its execution's record (docs/architecture.md#durability-by-effect), counted on the
 * records bucket's subjects as a NATS subscriber sees every write: a wait or a retry's backoff that parks is written by
 * its park alone, and a wake that comes after its step has passed (a short wait's timer put back while the run held the
 * execution) writes nothing.
 */
const nats = useNatsServer();
let rt: InProcessRuntime;
/** Each write of each execution: its status, whether it names a holder, and the steps it records waiting (or backing off). */
const writes = new Map<string, { status: string; held: boolean; waiting: string[] }[]>();

/** Executions run at once (WF_TEST_WAIT_WRITES, to measure with more). */
const EXECUTIONS = Number(process.env.WF_TEST_WAIT_WRITES ?? 5);
const TIMEOUT_MS = 60_000 + EXECUTIONS * 500;

interface WrittenRecord {
  id: string;
  status: string;
  holder?: unknown;
  steps: Record<string, { status: string; waitUntil?: number | null; retryAt?: number | null }>;
}

beforeAll(async () => {
  // Waits over a second park and wake by their timer; shorter ones stay in memory, their timer armed all the same.
  rt = await startRuntime(testConfig(nats.server, { WF_HOLD_WAIT_MS: "1000" }), { approvals: false });
  rt.platform.nc.subscribe(`$KV.${rt.ns}_executions.>`, {
    callback: (_err: unknown, m: Msg) => {
      if (m.data.length === 0) return;
      const r = m.json<WrittenRecord>();
      const waiting = Object.entries(r.steps)
        .filter(([, st]) => st.status === "RUNNING" && Boolean(st.waitUntil || st.retryAt))
        .map(([path]) => path);
      writes.set(r.id, [...(writes.get(r.id) ?? []), { status: r.status, held: Boolean(r.holder), waiting }]);
    },
  });
  await rt.platform.nc.flush();
});
afterAll(async () => {
  await rt?.stop();
});

/** Commands not yet handled for good: not delivered yet, or delivered and not acknowledged (put back with a delay). */
async function commandsOpen(): Promise<number> {
  let open = 0;
  for await (const c of rt.platform.jsm.consumers.list(streamNames(rt.ns).cmd))
    open += c.num_pending + c.num_ack_pending;
  return open;
}

/** Runs `yaml` EXECUTIONS times at once; once all have ended and every timer's wake was handled, each one's writes. */
async function writesOfRuns(yaml: string, wakes: number) {
  const ids = await Promise.all(Array.from({ length: EXECUTIONS }, () => run(rt.platform, yaml)));
  const ended = await Promise.all(ids.map((id) => waitForStatus(rt.platform, id, undefined, TIMEOUT_MS)));
  expect(ended.map((s) => s.status)).toEqual(ids.map(() => "COMPLETED"));
  // Every wait's timer fired and its wake was handled: a late one would have written by now.
  await waitFor(
    async () => {
      const timers = await rt.platform.jsm.streams.info(streamNames(rt.ns).timer);
      return timers.state.messages === 0 && (await commandsOpen()) === 0;
    },
    { what: `every timer fired (${wakes} an execution) and every command handled`, timeoutMs: TIMEOUT_MS },
  );
  await rt.platform.nc.flush();
  return ids.map((id) => writes.get(id) ?? []);
}

/** The record of execution `id` once it is parked (held by nobody) as `at` says. */
async function parkedAt(id: string, at: (v: ExecutionSnapshot) => boolean) {
  return waitFor(
    async () => {
      const v = (await rt.platform.store.executions.get(id))?.value;
      return v?.holder === null && at(v) ? v : undefined;
    },
    { what: "the execution to park" },
  );
}

/** Sends the resume a timer of `path` due at `dueAt` sends; once it is handled, the execution's writes so far. */
async function wakeOf(id: string, path: string, dueAt: number): Promise<number | undefined> {
  const h = headers();
  h.set(TIMER_DUE_HEADER, String(dueAt));
  const cmd: ResumeCommand = { executionId: id, reason: "timer", stepPath: path };
  await rt.platform.js.publish(subjects(rt.ns).execResume(id), JSON.stringify(cmd), { headers: h });
  await waitFor(async () => (await commandsOpen()) === 0, { what: "the wake handled" });
  await rt.platform.nc.flush();
  return writes.get(id)?.length;
}

/** A child that waits an hour. */
const LONG = "name: long\nsteps:\n  - { name: nap, type: wait, seconds: 3600 }\n";

describe("the writes of waits", () => {
  it(
    "a wait that parks is written once, by its park: no write of its own before it",
    async () => {
      const all = await writesOfRuns(
        `
name: parks-twice
steps:
  - { name: nap1, type: wait, seconds: 1.2 }
  - { name: nap2, type: wait, seconds: 1.2 }
`,
        2,
      );
      const total = all.reduce((n, w) => n + w.length, 0);
      for (const w of all)
        expect(w, `${total} writes over ${EXECUTIONS} executions`).toEqual([
          { status: "RUNNING", held: false, waiting: ["nap1"] },
          { status: "RUNNING", held: false, waiting: ["nap2"] },
          { status: "COMPLETED", held: false, waiting: [] },
        ]);
    },
    TIMEOUT_MS,
  );

  it(
    "a retry's backoff that parks is written once, by its park: a pure step's, and an outside step's after its start",
    async () => {
      // The sandbox's runner started first: a first JavaScript step that waits for it past a second is written meanwhile.
      const warm = await run(
        rt.platform,
        "name: warm\nsteps:\n  - { name: js, type: code, language: javascript, code: return 1 }\n",
      );
      expect((await waitForStatus(rt.platform, warm, undefined, TIMEOUT_MS)).status).toBe("COMPLETED");
      // Each fails its first attempt (its own error is not recorded yet) and passes its second.
      const all = await writesOfRuns(
        `
name: backs-off-twice
steps:
  - name: pure
    type: code
    language: javascript
    input: { failed: "{{ steps.pure.error }}" }
    retry: { max_attempts: 2, backoff: fixed, initial_delay: 1.2 }
    code: |
      if (!input.failed) throw new Error("first attempt");
      return 1;
  - name: outside
    type: code
    language: python
    input: { failed: "{{ steps.outside.error }}" }
    retry: { max_attempts: 2, backoff: fixed, initial_delay: 1.2 }
    code: |
      import json, os
      if not json.loads(os.environ["WF_INPUT"])["failed"]: raise SystemExit("first attempt")
      print(1)
`,
        2,
      );
      const total = all.reduce((n, w) => n + w.length, 0);
      for (const w of all)
        expect(w, `${total} writes over ${EXECUTIONS} executions`).toEqual([
          { status: "RUNNING", held: false, waiting: ["pure"] },
          // Each attempt of a step that acts outside is written as it starts.
          { status: "RUNNING", held: true, waiting: [] },
          { status: "RUNNING", held: false, waiting: ["outside"] },
          { status: "RUNNING", held: true, waiting: [] },
          { status: "COMPLETED", held: false, waiting: [] },
        ]);
    },
    TIMEOUT_MS,
  );

  it(
    "a wake that comes after its wait passed in memory, the execution parked at a later one, writes nothing",
    async () => {
      // The timer of `short` fires as the run leaves it for `nap`: put back while the run holds the execution, it comes
      // again once the execution is parked at `nap`, its own step recorded COMPLETED by that park.
      const all = await writesOfRuns(
        `
name: late-wake
steps:
  - { name: short, type: wait, seconds: 0.3 }
  - { name: nap, type: wait, seconds: 2 }
`,
        2,
      );
      const total = all.reduce((n, w) => n + w.length, 0);
      for (const w of all)
        expect(w, `${total} writes over ${EXECUTIONS} executions`).toEqual([
          // The in-memory wait, written before it is waited out.
          { status: "RUNNING", held: true, waiting: ["short"] },
          { status: "RUNNING", held: false, waiting: ["nap"] },
          { status: "COMPLETED", held: false, waiting: [] },
        ]);
    },
    TIMEOUT_MS,
  );
  it(
    "a wake due at none of its step's times writes nothing; one due at the step's time takes the execution up",
    async () => {
      const id = await run(rt.platform, "name: long\nsteps:\n  - { name: nap, type: wait, seconds: 3600 }\n");
      const parked = await parkedAt(id, (v) => Boolean(v.steps.nap?.waitUntil));
      const wake = (dueAt: number) => wakeOf(id, "nap", dueAt);
      const before = writes.get(id)!.length;
      // An earlier timer of the step's (a wait begun again after a crash, an earlier attempt's backoff).
      expect(await wake(parked.steps.nap!.waitUntil! - 60_000)).toBe(before);
      // Its own timer, early by this host's clock: taken up, found early, parked again.
      expect(await wake(parked.steps.nap!.waitUntil!)).toBe(before + 1);
    },
    TIMEOUT_MS,
  );

  it(
    "a wake of a sub-workflow step whose child has started (its start no longer put off) writes nothing",
    async () => {
      const child = newWorkflowRecord({
        id: `wf-${newId()}`,
        ownerId: "owner1",
        yaml: LONG,
        definition: definitionOf(LONG),
      });
      await rt.platform.store.workflows.create(child);
      const id = await run(
        rt.platform,
        `name: calls\nsteps:\n  - { name: call, type: workflow, workflow: ${child.id}, timeout: 7200 }\n`,
      );
      const parked = await parkedAt(id, (v) => Boolean(v.steps.call?.childExecutionId));
      const before = writes.get(id)!.length;
      // The timer of a start put off by the owner's budget, come late: the step cleared its time once the child started.
      expect(await wakeOf(id, "call", parked.steps.call!.startedAt! + 1_000)).toBe(before);
      // Its deadline's timer, early by this host's clock: taken up, found early, parked again.
      expect(await wakeOf(id, "call", parked.steps.call!.deadline!)).toBe(before + 1);
    },
    TIMEOUT_MS,
  );
});
