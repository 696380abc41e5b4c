import { describe, expect, it, onTestFinished } from "vitest";
import { waitFor } from "../support/runtime";
import { consoleSession, openStream, useConsole, type EventStream, type Session } from "./support";

const PER_USER = 3;

const env = useConsole({ runtime: false, env: { WF_CONSOLE_EVENT_STREAMS: String(PER_USER) } });

/** Opens the user's own event stream; closed at the end of the test. */
async function open(me: Session): Promise<EventStream> {
  const stream = await openStream(env(), me, "/api/console/events");
  onTestFinished(() => stream.close());
  return stream;
}

/** A request for one more stream: its status, and its JSON body when refused (a stream opened is closed at once). */
async function tryOpen(me: Session): Promise<{ status: number; body: Record<string, unknown> }> {
  const ac = new AbortController();
  const res = await fetch(`${env().base}/api/console/events`, { headers: { cookie: me.cookie }, signal: ac.signal });
  if (res.status === 200) {
    ac.abort();
    return { status: 200, body: {} };
  }
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("console event streams per user", () => {
  it("refuses a user's stream past the limit with 429 EVENT_STREAMS_LIMIT, not another user's, and a closed stream frees a place", async () => {
    const [me, other] = await Promise.all([consoleSession(env()), consoleSession(env())]);
    const streams = [];
    for (let i = 0; i < PER_USER; i++) streams.push(await open(me));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);

    const refused = await tryOpen(me);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: "EVENT_STREAMS_LIMIT",
      error: expect.stringContaining("3 event streams open"),
      openStreams: PER_USER,
      limit: PER_USER,
    });
    expect((await open(other)).status).toBe(200);

    streams[0]!.close();
    await waitFor(async () => (await tryOpen(me)).status === 200, { what: "a place freed by the closed stream" });
    // The stream just opened and closed gave its place back too.
    await waitFor(async () => (await open(me)).status === 200, { what: "the place to be given back" });
    expect((await tryOpen(me)).status).toBe(429);
  });
});
