import type { ServerResponse } from "node:http";
import { DeliverPolicy } from "@nats-io/jetstream";
import {
  endedStatus,
  endEventType,
  ExecutionEvent,
  TERMINAL_STATUSES,
  type ExecutionSnapshot,
} from "@wf/shared/execution";
import { streamNames, subjects } from "@wf/shared/nats";
import type { FastifyReply } from "fastify";
import type { EdgeContext } from "../context";

/** A comment line this often keeps proxies and browsers from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;

type StreamContext = Pick<EdgeContext, "js" | "ns" | "store" | "log" | "closing" | "openStreams">;

/**
 * How long after its end an execution whose end event is not on the stream is still followed: its events go out
 * after the write that ends it. The stream's own rule for an end event that never comes (two heartbeats).
 */
const END_EVENT_WAIT_MS = 2 * HEARTBEAT_MS;

/**
 * Whether following `execution` after sequence `afterSeq` (0: from its start) would send nothing: it has ended, no event
 * of it is left after that point, and none is on its way (its end event is on the stream, or it ended longer than
 * END_EVENT_WAIT_MS ago).
 */
export async function nothingMoreComes(
  ctx: Pick<EdgeContext, "js" | "ns">,
  execution: ExecutionSnapshot,
  afterSeq: number,
): Promise<boolean> {
  if (!TERMINAL_STATUSES.has(execution.status)) return false;
  const jsm = await ctx.js.jetstreamManager(false);
  // STREAM.MSG.GET finds the first message at or after `seq` on a subject filter (wildcards
  // allowed) since nats-server 2.9; nats.js types `next_by_subj` for direct gets only.
  const first = (seq: number, type?: string) => {
    const query = { seq, next_by_subj: subjects(ctx.ns).eventFilter({ executionId: execution.id, type }) };
    return jsm.streams.getMessage(streamNames(ctx.ns).evt, query);
  };
  // The end event first: its events come in order, so once it is on the stream every other is. Asked second, it could
  // arrive between the two reads with the rest, and an execution whose events were all to come read as done (a 204).
  const endOnStream = (await first(1, endEventType(execution.status))) !== null;
  if ((await first(afterSeq + 1)) !== null) return false;
  return endOnStream || Date.now() - (execution.completedAt ?? 0) > END_EVENT_WAIT_MS;
}

/** What one event stream follows: one execution to its end, or all of an owner's executions from now on. */
export type EventScope = { executionId: string } | { ownerId: string };

/**
 * Sends events after `afterSeq` as Server-Sent Events through one ordered consumer, so history and
 * live events meet with no gap and no repeat; a frame's id is the event's stream sequence. One
 * execution's stream ends after its end event, an owner's when the client leaves
 * (docs/api.md#following-events). Until the consumer is open a failure is the route's answer: past
 * `userId`'s streams open on this process (openStreams), a 429.
 */
export async function streamEvents(
  ctx: StreamContext,
  reply: FastifyReply,
  scope: EventScope,
  afterSeq: number,
  userId: string,
): Promise<void> {
  const release = ctx.openStreams.take(userId);
  try {
    await follow(ctx, reply, scope, afterSeq);
  } finally {
    release();
  }
}

async function follow(ctx: StreamContext, reply: FastifyReply, scope: EventScope, afterSeq: number): Promise<void> {
  const forExecution = "executionId" in scope;
  const start =
    afterSeq > 0
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: afterSeq + 1 }
      : { deliver_policy: forExecution ? DeliverPolicy.All : DeliverPolicy.New };
  const consumer = await ctx.js.consumers.get(streamNames(ctx.ns).evt, {
    filter_subjects: subjects(ctx.ns).eventFilter(scope),
    ...start,
  });
  const messages = await consumer.consume();
  reply.hijack();
  const res = reply.raw;
  // The connection ends with the stream, not kept alive: a closing edge's server would wait for it.
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
    connection: "close",
  });
  // A first comment so that the client's open event fires now, not at the first event.
  res.write(": open\n\n");
  const stop = () => void messages.close();
  res.on("close", stop);
  ctx.closing.signal.addEventListener("abort", stop, { once: true });
  // Either may have happened while the consumer was being opened.
  if (res.destroyed || ctx.closing.signal.aborted) stop();
  const beat = forExecution
    ? executionBeat(ctx, res, scope.executionId, stop)
    : async () => void res.write(": heartbeat\n\n");
  const heartbeat = setInterval(() => void beat(), HEARTBEAT_MS);
  try {
    for await (const m of messages) {
      const event = parseEvent(m.string());
      if (event === null) continue;
      if (!(await write(res, `id: ${m.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`))) break;
      if (forExecution && endedStatus(event.type)) break;
    }
  } catch (err) {
    ctx.log.error("event stream failed", { scope, err });
  } finally {
    clearInterval(heartbeat);
    res.off("close", stop);
    ctx.closing.signal.removeEventListener("abort", stop);
    await messages.close();
    // An ordered consumer outlives its client by 5 minutes of inactivity unless deleted.
    await consumer
      .delete()
      .catch((err: unknown) => ctx.log.warn("event stream: its consumer could not be deleted", { scope, err }));
    res.end();
  }
}

/**
 * An execution that ended without its end event reaching the stream (its executor died between
 * the snapshot and the publish, and the event is not coming) would hold the stream open: two
 * beats in a row that find it ended end the stream.
 */
function executionBeat(
  ctx: StreamContext,
  res: ServerResponse,
  executionId: string,
  stop: () => void,
): () => Promise<void> {
  let endedAtLastBeat = false;
  return async () => {
    res.write(": heartbeat\n\n");
    try {
      const status = (await ctx.store.executions.get(executionId))?.value.status;
      const ended = status === undefined || TERMINAL_STATUSES.has(status);
      if (ended && endedAtLastBeat) stop();
      endedAtLastBeat = ended;
    } catch (err) {
      ctx.log.warn("event stream: the execution could not be read", { executionId, err });
    }
  };
}

function parseEvent(text: string): ExecutionEvent | null {
  try {
    const parsed = ExecutionEvent.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Writes, waiting while a slow client's buffer is full; false once the client is gone. */
async function write(res: ServerResponse, text: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(text)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  }
  return !res.destroyed;
}
