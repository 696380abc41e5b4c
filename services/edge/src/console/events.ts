import type { FastifyRequest } from "fastify";
import { ErrorBody, EventSequence, EventStreamQuery, IdParams } from "@wf/shared/api";
import { ExecutionEvent } from "@wf/shared/execution";
import { visibleExecution } from "../access/roles";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { HEARTBEAT_MS, nothingMoreComes, streamEvents } from "./event-stream";

export const consoleEventRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/console/executions/{id}/events",
    operationId: "consoleExecutionEvents",
    summary: "Follow an execution's events as Server-Sent Events: its history, then live events, until it ends",
    description:
      "Each event is one SSE message: `id:` its sequence in the event stream, `event:` its type, `data:` the event as JSON. " +
      "After lastEventId (or the Last-Event-ID header that EventSource sends when it reconnects), only later events are sent: " +
      "no gap, no repeat. The stream ends after exec_completed, exec_failed, exec_cancelled or exec_interrupted; " +
      `a comment line comes every ${HEARTBEAT_MS / 1000} s while it is quiet.`,
    tag: "events",
    auth: "console",
    params: IdParams,
    query: EventStreamQuery,
    status: 200,
    responses: {
      200: { description: "The events, as text/event-stream; each `data:` is one event.", eventStream: ExecutionEvent },
      204: {
        description:
          "The execution has ended, no event of it remains after lastEventId and none is on its way: nothing more will come (EventSource stops reconnecting).",
      },
      404: { description: "No such execution, or not visible to you.", schema: ErrorBody },
      429: {
        description:
          "`EVENT_STREAMS_LIMIT`: you have as many event streams open on this server as one user may (WF_CONSOLE_EVENT_STREAMS); close one and retry.",
        schema: ErrorBody,
      },
    },
    async handler({ params, query }, { ctx, request, reply, consoleUser }) {
      const afterSeq = lastEventIdHeader(request) ?? query.lastEventId ?? 0;
      const { execution } = await visibleExecution(ctx.store, params.id, consoleUser().userId);
      if (await nothingMoreComes(ctx, execution.value, afterSeq)) {
        void reply.code(204);
        return undefined;
      }
      await streamEvents(ctx, reply, { executionId: params.id }, afterSeq, consoleUser().userId);
      return undefined;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/events",
    operationId: "consoleOwnerEvents",
    summary: "Follow the events of all your executions as Server-Sent Events, from now on",
    description:
      "What the console's live lists (executions, approvals) follow: every event of every execution you own, as it happens, " +
      "in the same frames as an execution's stream. It starts with the next event (or after lastEventId / Last-Event-ID, " +
      `so a reconnecting EventSource misses nothing the stream still holds) and never ends by itself; a comment line comes every ${HEARTBEAT_MS / 1000} s while it is quiet.`,
    tag: "events",
    auth: "console",
    query: EventStreamQuery,
    status: 200,
    responses: {
      200: { description: "The events, as text/event-stream; each `data:` is one event.", eventStream: ExecutionEvent },
      429: {
        description:
          "`EVENT_STREAMS_LIMIT`: you have as many event streams open on this server as one user may (WF_CONSOLE_EVENT_STREAMS); close one and retry.",
        schema: ErrorBody,
      },
    },
    async handler({ query }, { ctx, request, reply, consoleUser }) {
      const afterSeq = lastEventIdHeader(request) ?? query.lastEventId ?? 0;
      const { userId } = consoleUser();
      await streamEvents(ctx, reply, { ownerId: userId }, afterSeq, userId);
      return undefined;
    },
  }),
];

/** The Last-Event-ID header stands for the lastEventId query field (and wins): its problems are that field's. */
function lastEventIdHeader(request: FastifyRequest): number | undefined {
  const header = request.headers["last-event-id"];
  if (header === undefined || header === "") return undefined;
  const parsed = EventSequence.safeParse(header);
  if (parsed.success) return parsed.data;
  const message = `the Last-Event-ID header (which stands for lastEventId) ${parsed.error.issues[0]?.message ?? "is invalid"}`;
  throw validationError([{ in: "query", field: "lastEventId", message }]);
}
