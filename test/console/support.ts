import { beforeAll } from "vitest";
import { TERMINAL_STATUSES, type ExecutionSnapshot } from "@wf/shared/execution";
import { useApi, type ApiEnv, type Session } from "../api/support";
import { waitFor } from "../support/runtime";

// Console logins are made as the API tests make them (inject: the same routes, no socket).
export { consoleSession, type Session } from "../api/support";

/** The edge with the runtime, also on a real HTTP listener: event streams need one (inject does not stream). */
export interface ConsoleEnv extends ApiEnv {
  base: string;
}

/** `env`: configuration on top of the tests' own (LLM providers, egress), for the edge and the runtime. */
export function useConsole(opts: { runtime?: boolean; env?: Record<string, string> } = {}): () => ConsoleEnv {
  const api = useApi({ runtime: opts.runtime ?? true, ...(opts.env ? { env: opts.env } : {}) });
  let base: string | undefined;
  beforeAll(async () => {
    await api().app.listen({ port: 0, host: "127.0.0.1" });
    const address = api().app.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    base = `http://127.0.0.1:${address.port}`;
  });
  return () => {
    if (base === undefined) throw new Error("the console edge is not listening yet");
    return { ...api(), base };
  };
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A console request with the session cookie (when given) and, unless `csrf` is false, its CSRF token. */
export async function consoleCall(
  env: ConsoleEnv,
  session: Session | null,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  opts: { body?: unknown; csrf?: boolean | string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (session) headers.cookie = session.cookie;
  if (session && opts.csrf !== false)
    headers["x-csrf-token"] = typeof opts.csrf === "string" ? opts.csrf : session.csrf;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(`${env.base}${path}`, {
    method,
    headers,
    ...(opts.body === undefined ? {} : { body: typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** An answer's status and the catalogue code its body carries. */
export const statusAndCode = (r: Answer): [number, unknown] => [r.status, r.body.code];

/** One Server-Sent Events message: its fields as sent (a comment line is a heartbeat). */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface EventStream {
  status: number;
  headers: Headers;
  /** The messages until the server ends the stream (or `close` is called). */
  messages: AsyncGenerator<SseMessage>;
  close(): void;
}

/** Opens an execution's event stream over real HTTP, the way EventSource does. */
export function openEvents(
  env: ConsoleEnv,
  session: Session | null,
  executionId: string,
  opts: { lastEventId?: string; query?: string } = {},
): Promise<EventStream> {
  return openStream(env, session, `/api/console/executions/${executionId}/events${opts.query ?? ""}`, opts);
}

/**
 * Opens an event stream (an execution's, or the owner's `/api/console/events`) over real HTTP, the way EventSource
 * does.
 */
export async function openStream(
  env: ConsoleEnv,
  session: Session | null,
  path: string,
  opts: { lastEventId?: string } = {},
): Promise<EventStream> {
  const ac = new AbortController();
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (session) headers.cookie = session.cookie;
  if (opts.lastEventId !== undefined) headers["last-event-id"] = opts.lastEventId;
  const res = await fetch(`${env.base}${path}`, { headers, signal: ac.signal });
  return { status: res.status, headers: res.headers, messages: sseMessages(res, ac.signal), close: () => ac.abort() };
}

async function* sseMessages(res: Response, signal: AbortSignal): AsyncGenerator<SseMessage> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = {};
        for (const line of block.split("\n")) {
          const colon = line.indexOf(":");
          const [field, value] =
            colon < 0 ? [line, ""] : [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, "")];
          if (field === "") message.comment = value;
          else if (field === "id" || field === "event" || field === "data") message[field] = value;
        }
        yield message;
      }
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}

/** Starts and step tests over the console's API (docs/rerun.md#testing-one-step), and an execution's end, read from the store. */
export function stepTestCalls(env: () => ConsoleEnv): {
  stepTest(who: Session, workflowId: string, body: unknown): Promise<Answer>;
  /** A console start of the stored workflow: its execution's id. */
  started(who: Session, workflowId: string): Promise<string>;
  ended(id: string): Promise<ExecutionSnapshot>;
} {
  return {
    started: async (who, workflowId) => {
      const r = await consoleCall(env(), who, "POST", `/api/console/workflows/${workflowId}/executions`, { body: {} });
      if (r.status !== 202) throw new Error(`start refused: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.executionId as string;
    },
    stepTest: (who, workflowId, body) =>
      consoleCall(env(), who, "POST", `/api/console/workflows/${workflowId}/step-tests`, { body }),
    ended: (id) =>
      waitFor(
        async () => {
          const v = await env().platform.store.executions.get(id);
          return v && TERMINAL_STATUSES.has(v.value.status) ? v.value : undefined;
        },
        { timeoutMs: 30_000, what: `execution ${id} to end` },
      ),
  };
}

/** What the debug-run polls read of a console execution view. */
interface DebugRunView {
  status: string;
  error: string | null;
  pause: { id: string } | null;
}

/**
 * Bounded polls of a debug run through `view` (its console execution view): `paused` until the run waits at a pause
 * other than `after` (an end meanwhile fails the test), `ended` until it ended.
 */
export function debugRunPolls<V extends DebugRunView>(
  view: (id: string) => Promise<V>,
): {
  paused(id: string, after?: string): Promise<V & { pause: NonNullable<V["pause"]> }>;
  ended(id: string): Promise<V>;
} {
  const ended = (v: V) => TERMINAL_STATUSES.has(v.status as ExecutionSnapshot["status"]);
  return {
    paused: (id, after) =>
      waitFor(
        async () => {
          const v = await view(id);
          if (ended(v)) throw new Error(`ended ${v.status} (${v.error}) instead of pausing`);
          return v.status === "PAUSED" && v.pause && v.pause.id !== after
            ? (v as V & { pause: NonNullable<V["pause"]> })
            : undefined;
        },
        { timeoutMs: 15_000, what: `execution ${id} to pause` },
      ),
    ended: (id) =>
      waitFor(
        async () => {
          const v = await view(id);
          return ended(v) ? v : undefined;
        },
        { timeoutMs: 15_000, what: `execution ${id} to end` },
      ),
  };
}
