import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";
import { ExecutionEvent } from "../execution/index";
import { streamNames, subjects } from "../nats/subjects";

export interface TailOptions {
  ownerId?: string;
  workflowId?: string;
  executionId?: string;
  /** Epoch ms to replay from; default: only new events. */
  since?: number;
}

/**
 * Follows execution events with an ordered (ephemeral) consumer, as an operator would with
 * `nats sub` or `nats stream view`: nothing is created that outlives the tail.
 */
export async function* tailEvents(js: JetStreamClient, ns: string, opts: TailOptions, signal?: AbortSignal) {
  const consumer = await js.consumers.get(streamNames(ns).evt, {
    filter_subjects: subjects(ns).eventFilter(opts),
    ...(opts.since === undefined
      ? { deliver_policy: DeliverPolicy.New }
      : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(opts.since).toISOString() }),
  });
  const messages = await consumer.consume();
  signal?.addEventListener("abort", () => void messages.close(), { once: true });
  for await (const m of messages) {
    const parsed = ExecutionEvent.safeParse(JSON.parse(m.string()));
    if (parsed.success) yield parsed.data;
  }
}
