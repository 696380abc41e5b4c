import { describe, expect, it } from "vitest";
import { waitFor } from "@wf/testing";
import { storeWorkflow } from "../api/support";
import {
  consoleCall,
  consoleSession,
  openStream,
  useConsole,
  type EventStream,
  type Session,
  type SseMessage,
} from "./support";

const env = useConsole();

const QUICK_YAML = `
name: quick
steps:
  - { name: only, type: transform, output: done }
`;

/** The `Set-Cookie` headers of a response, by cookie name. */
function cookiesOf(r: Response): Map<string, string> {
  return new Map(r.headers.getSetCookie().map((c) => [c.slice(0, c.indexOf("=")), c]));
}

async function login(email: string, password: string): Promise<Response> {
  return fetch(`${env().base}/api/console/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
}

/** Reads data frames until `done` says enough, or fails after `timeoutMs`. */
async function framesUntil(
  stream: EventStream,
  done: (frames: SseMessage[]) => boolean,
  timeoutMs = 15_000,
): Promise<SseMessage[]> {
  const frames: SseMessage[] = [];
  const timer = setTimeout(() => stream.close(), timeoutMs);
  try {
    for await (const m of stream.messages) {
      if (m.data === undefined) continue;
      frames.push(m);
      if (done(frames)) return frames;
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`the stream ended after ${frames.length} frames: ${frames.map((f) => f.event).join(", ")}`);
}

async function start(session: Session, workflowId: string): Promise<string> {
  const r = await consoleCall(env(), session, "POST", `/api/console/workflows/${workflowId}/executions`, { body: {} });
  expect(r.status).toBe(202);
  return r.body.executionId as string;
}

describe("the console session as the web app uses it", () => {
  it("login sets the HttpOnly session cookie and a readable wf_csrf cookie holding the CSRF token; logout clears both", async () => {
    const me = await consoleSession(env());
    const r = await login(me.user.email, "correct horse battery");
    expect(r.status).toBe(200);
    const body = (await r.json()) as { csrfToken: string };
    const cookies = cookiesOf(r);
    expect(cookies.get("wf_session")).toMatch(/HttpOnly/);
    const csrf = cookies.get("wf_csrf") ?? "";
    expect(csrf).toContain(`wf_csrf=${body.csrfToken};`);
    expect(csrf).toContain("Path=/;");
    expect(csrf).toContain("SameSite=Strict");
    expect(csrf).not.toContain("HttpOnly");

    // The cookie's token is the session's: a change sent with it is accepted.
    const session: Session = {
      user: me.user,
      cookie: cookies.get("wf_session")!.split(";")[0]!,
      csrf: csrf.slice("wf_csrf=".length, csrf.indexOf(";")),
    };
    expect(
      (
        await consoleCall(env(), session, "PUT", "/api/console/secrets/FROM_COOKIE", {
          body: { value: "value-from-cookie" },
        })
      ).status,
    ).toBe(200);

    const out = await fetch(`${env().base}/api/console/logout`, {
      method: "POST",
      headers: { cookie: session.cookie, "x-csrf-token": session.csrf },
    });
    expect(out.status).toBe(204);
    const cleared = cookiesOf(out);
    expect(cleared.get("wf_session")).toContain("Max-Age=0");
    expect(cleared.get("wf_csrf")).toContain("Max-Age=0");
  });

  it("GET /api/console/session names the session's user, and is a 401 without a session", async () => {
    const anonymous = await consoleCall(env(), null, "GET", "/api/console/session");
    expect([anonymous.status, anonymous.body.code]).toEqual([401, "SESSION_REQUIRED"]);
    const me = await consoleSession(env(), "pro");
    const r = await consoleCall(env(), me, "GET", "/api/console/session");
    expect(r.status).toBe(200);
    expect(r.body.user).toEqual({ id: me.user.id, email: me.user.email, plan: "pro" });
    expect(r.body.expiresAt as number).toBeGreaterThan(Date.now());
    expect(r.body).not.toHaveProperty("csrfToken");
  });
});

describe("GET /api/console/events: the owner's live events", () => {
  it("needs the session", async () => {
    const stream = await openStream(env(), null, "/api/console/events");
    expect(stream.status).toBe(401);
  });

  it("streams the events of the caller's executions from now on, none of another owner's, and resumes after Last-Event-ID", async () => {
    const me = await consoleSession(env());
    const other = await consoleSession(env());
    const mine = await storeWorkflow(env(), me.user.id, QUICK_YAML);
    const theirs = await storeWorkflow(env(), other.user.id, QUICK_YAML);
    // An execution that ended before the stream opened is not replayed.
    const before = await start(me, mine.id);
    await waitFor(
      async () =>
        (await consoleCall(env(), me, "GET", `/api/console/executions/${before}`)).body.status === "COMPLETED"
          ? true
          : undefined,
      {
        timeoutMs: 15_000,
        what: "the first execution to end",
      },
    );

    const stream = await openStream(env(), me, "/api/console/events");
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const foreign = await start(other, theirs.id);
    const first = await start(me, mine.id);
    const frames = await framesUntil(stream, (f) => f.some((m) => m.event === "exec_completed"));
    stream.close();
    const events = frames.map((m) => JSON.parse(m.data!) as { executionId: string; ownerId: string; type: string });
    expect(new Set(events.map((e) => e.executionId))).toEqual(new Set([first]));
    expect(events.every((e) => e.ownerId === me.user.id)).toBe(true);
    expect(events.map((e) => e.executionId)).not.toContain(before);
    expect(events.map((e) => e.executionId)).not.toContain(foreign);

    // A reconnect after the first frame gets the rest of them, and what came since: no gap, no repeat.
    const second = await start(me, mine.id);
    const resumed = await openStream(env(), me, "/api/console/events", { lastEventId: frames[0]!.id! });
    const again = await framesUntil(resumed, (f) =>
      f.some((m) => m.event === "exec_completed" && m.data!.includes(second)),
    );
    resumed.close();
    expect(again.slice(0, frames.length - 1).map((m) => m.id)).toEqual(frames.slice(1).map((m) => m.id));
    expect(
      new Set(again.slice(frames.length - 1).map((m) => (JSON.parse(m.data!) as { executionId: string }).executionId)),
    ).toEqual(new Set([second]));
  });
});
