import { describe, expect, it } from "vitest";
import { ExecutionSnapshot, newId } from "@wf/shared/execution";
import { streamNames, subjects, toToken } from "@wf/shared/nats";
import { buildEdge } from "@wf/edge";
import { waitFor } from "@wf/testing";
import { storedExecution, storeWorkflow } from "../api/support";
import {
  consoleCall,
  consoleSession,
  openEvents,
  statusAndCode,
  useConsole,
  type ConsoleEnv,
  type EventStream,
  type Session,
  type SseMessage,
} from "./support";

const env = useConsole();

/** Events before and after a wait, so that a stream opened during the wait has history and live events. */
const PACED_YAML = `
name: paced
steps:
  - name: first
    type: transform
    output: one
  - name: hold
    type: wait
    seconds: 2
  - name: last
    type: transform
    output: two
`;

interface Stored {
  seq: number;
  type: string;
}

/** The execution's events as the EVT stream holds them, read one by one: what every stream is checked against. */
async function storedEvents(e: ConsoleEnv, executionId: string): Promise<Stored[]> {
  const out: Stored[] = [];
  for (let seq = 1; ;) {
    const m = await e.platform.jsm.streams.getMessage(streamNames(e.ns).evt, {
      seq,
      next_by_subj: subjects(e.ns).eventFilter({ executionId }),
    } as {
      seq: number;
    });
    if (m === null) return out;
    out.push({ seq: m.seq, type: (m.json() as { type: string }).type });
    seq = m.seq + 1;
  }
}

/** The stream's event messages (heartbeats left out) until the server ends it; fails if it does not end in time. */
async function readToEnd(stream: EventStream, timeoutMs = 20_000): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  const timer = setTimeout(() => stream.close(), timeoutMs);
  try {
    for await (const m of stream.messages) if (m.comment === undefined) out.push(m);
  } finally {
    clearTimeout(timer);
  }
  return out;
}

/** The consumers on the EVT stream that follow this execution. */
async function consumersOf(e: ConsoleEnv, executionId: string): Promise<number> {
  const infos = await e.platform.jsm.consumers.list(streamNames(e.ns).evt).next();
  return infos.filter((c) =>
    [c.config.filter_subject, ...(c.config.filter_subjects ?? [])].some((s) => s?.includes(executionId)),
  ).length;
}

async function startPaced(me: Session): Promise<string> {
  const wf = await storeWorkflow(env(), me.user.id, PACED_YAML);
  const r = await consoleCall(env(), me, "POST", `/api/console/workflows/${wf.id}/executions`, { body: {} });
  expect(r.status).toBe(202);
  return r.body.executionId as string;
}

const asStored = (messages: SseMessage[]): Stored[] => messages.map((m) => ({ seq: Number(m.id), type: m.event! }));

describe("GET /api/console/executions/{id}/events", () => {
  it("sends the history, then live events, in stream order, each with its sequence as id, and ends after the terminal event", async () => {
    const me = await consoleSession(env());
    const id = await startPaced(me);
    // Events go out after the write they describe, so the record can show a step done before its event is in the stream.
    const history = await waitFor(
      async () => {
        const stored = await storedEvents(env(), id);
        return stored.some((e) => e.type === "step_completed") ? stored : undefined;
      },
      { what: "step first's completion in the event stream" },
    );
    const stream = await openEvents(env(), me, id);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.headers.get("cache-control")).toBe("no-store");
    const received = await readToEnd(stream);

    const all = await storedEvents(env(), id);
    expect(asStored(received)).toEqual(all);
    expect(all.at(-1)!.type).toBe("exec_completed");
    const lastOfHistory = history.at(-1)!.seq;
    expect(received.filter((m) => Number(m.id) <= lastOfHistory).length).toBeGreaterThanOrEqual(3);
    expect(received.filter((m) => Number(m.id) > lastOfHistory).map((m) => m.event)).toContain("step_completed");
    for (const m of received) {
      expect(JSON.parse(m.data!)).toMatchObject({
        type: m.event,
        executionId: id,
        ownerId: me.user.id,
        at: expect.any(Number),
        id: expect.any(String),
      });
    }
    await waitFor(async () => (await consumersOf(env(), id)) === 0 || undefined, {
      what: "the stream's consumer to be deleted",
    });
  });

  it("a client that leaves mid-run and comes back with Last-Event-ID gets exactly the events after it: no gap, no repeat", async () => {
    const me = await consoleSession(env());
    const id = await startPaced(me);
    const first = await openEvents(env(), me, id);
    const before: SseMessage[] = [];
    for await (const m of first.messages) {
      if (m.comment === undefined) before.push(m);
      if (m.event === "step_started" && JSON.parse(m.data!).step === "hold") break;
    }
    first.close();
    // The consumer goes with the client.
    await waitFor(async () => (await consumersOf(env(), id)) === 0 || undefined, {
      what: "the left stream's consumer to be deleted",
    });

    const lastId = before.at(-1)!.id!;
    const again = await openEvents(env(), me, id, { lastEventId: lastId });
    expect(again.status).toBe(200);
    const after = await readToEnd(again);
    expect(Number(after[0]!.id)).toBeGreaterThan(Number(lastId));
    expect(asStored([...before, ...after])).toEqual(await storedEvents(env(), id));
    expect(after.at(-1)!.event).toBe("exec_completed");
  });

  it("after the end: Last-Event-ID (or lastEventId) in the middle gets the rest; at the end a 204 says nothing more will come", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PACED_YAML.replace("seconds: 2", "seconds: 0"));
    const started = await consoleCall(env(), me, "POST", `/api/console/workflows/${wf.id}/executions`, { body: {} });
    const id = started.body.executionId as string;
    await waitFor(
      async () => (await env().platform.store.executions.get(id))?.value.status === "COMPLETED" || undefined,
      { what: "the run to end" },
    );
    const all = await waitFor(
      async () => {
        const events = await storedEvents(env(), id);
        return events.at(-1)?.type === "exec_completed" ? events : undefined;
      },
      { what: "the end event" },
    );

    expect(asStored(await readToEnd(await openEvents(env(), me, id)))).toEqual(all);
    const middle = all[Math.floor(all.length / 2)]!.seq;
    const rest = all.filter((e) => e.seq > middle);
    expect(asStored(await readToEnd(await openEvents(env(), me, id, { lastEventId: String(middle) })))).toEqual(rest);
    expect(asStored(await readToEnd(await openEvents(env(), me, id, { query: `?lastEventId=${middle}` })))).toEqual(
      rest,
    );
    // The header is what EventSource sends on a reconnect: it wins over the query the page was opened with.
    expect(
      asStored(
        await readToEnd(await openEvents(env(), me, id, { query: "?lastEventId=1", lastEventId: String(middle) })),
      ),
    ).toEqual(rest);

    const ended = await openEvents(env(), me, id, { lastEventId: String(all.at(-1)!.seq) });
    expect(ended.status).toBe(204);
    expect(await consumersOf(env(), id)).toBe(0);
  });

  it("follows an execution that ended a moment ago whose events are still on their way; 204 once they could not be", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PACED_YAML);
    const ended = (completedAt: number) =>
      storedExecution({
        workflowId: wf.id,
        workflowName: wf.name,
        ownerId: me.user.id,
        triggerSource: "console",
        createdAt: completedAt,
        completedAt,
        definition: wf.definition,
      });
    // Its record written, its events not yet published: how a quick run looks between its one write and its events.
    const fresh = ended(Date.now());
    await env().platform.store.executions.create(fresh);
    const stream = await openEvents(env(), me, fresh.id);
    expect(stream.status).toBe(200);
    const published = [];
    for (const type of ["exec_started", "exec_completed"]) {
      const event = {
        type,
        executionId: fresh.id,
        workflowId: wf.id,
        ownerId: me.user.id,
        at: Date.now(),
        id: newId(),
        data: {},
      };
      const subject = subjects(env().ns).event(toToken(me.user.id), toToken(wf.id), fresh.id, type);
      published.push({ seq: (await env().platform.js.publish(subject, JSON.stringify(event))).seq, type });
    }
    expect(asStored(await readToEnd(stream))).toEqual(published);

    // Ended a minute ago with no event on the stream: none is coming (its executor died before publishing).
    const old = ended(Date.now() - 60_000);
    await env().platform.store.executions.create(old);
    expect((await openEvents(env(), me, old.id)).status).toBe(204);
  });

  it("needs the session (no CSRF for a GET), shows only visible executions, and refuses ids it never sent", async () => {
    const [me, stranger] = await Promise.all([consoleSession(env()), consoleSession(env())]);
    const id = await startPaced(me);
    const events = (session: Session | null, executionId: string) =>
      consoleCall(env(), session, "GET", `/api/console/executions/${executionId}/events`);
    expect(statusAndCode(await events(null, id))).toEqual([401, "SESSION_REQUIRED"]);
    expect(statusAndCode(await events(stranger, id))).toEqual([404, "NOT_FOUND"]);
    expect(statusAndCode(await events(me, "no-such-execution"))).toEqual([404, "NOT_FOUND"]);
    const badHeader = await consoleCall(env(), me, "GET", `/api/console/executions/${id}/events`, {
      headers: { "last-event-id": "abc" },
    });
    expect(statusAndCode(badHeader)).toEqual([400, "VALIDATION_FAILED"]);
    expect(badHeader.body.details).toEqual([
      { in: "query", field: "lastEventId", message: expect.stringContaining("Last-Event-ID header") },
    ]);
    const badQuery = await consoleCall(env(), me, "GET", `/api/console/executions/${id}/events?lastEventId=0`);
    expect(badQuery.body.details).toEqual([{ in: "query", field: "lastEventId", message: expect.any(String) }]);
    const unknown = await consoleCall(env(), me, "GET", `/api/console/executions/${id}/events?since=1`);
    expect(statusAndCode(unknown)).toEqual([400, "VALIDATION_FAILED"]);
  });

  it("an edge that closes ends its open streams rather than waiting for them, and deletes their consumers", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PACED_YAML);
    const now = Date.now();
    // A run no executor holds: its stream stays open, with nothing to send.
    const quiet = ExecutionSnapshot.parse({
      id: newId(),
      workflowId: wf.id,
      workflowName: wf.name,
      ownerId: me.user.id,
      triggerSource: "console",
      status: "RUNNING",
      totalSteps: 3,
      createdAt: now,
      startedAt: now,
      vars: {},
      definition: wf.definition,
    });
    await env().platform.store.executions.create(quiet);
    const other = await buildEdge(env().platform);
    await other.listen({ port: 0, host: "127.0.0.1" });
    const address = other.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const stream = await openEvents({ ...env(), base: `http://127.0.0.1:${address.port}` }, me, quiet.id);
    expect(stream.status).toBe(200);
    await waitFor(async () => (await consumersOf(env(), quiet.id)) === 1 || undefined, {
      what: "the stream's consumer",
    });
    const closing = Date.now();
    await other.close();
    expect(Date.now() - closing).toBeLessThan(5_000);
    expect(await readToEnd(stream, 5_000)).toEqual([]);
    expect(await consumersOf(env(), quiet.id)).toBe(0);
  });
});
