import type { JetStreamManager } from "@nats-io/jetstream";
import { consumeCommands, type CommandConsumer, type CommandConsumerOptions } from "./command-consumer";
import { ensureConsumer } from "./consumers";
import { LaneShares } from "./lane-shares";
import type { WorkQueue } from "./subjects";

export interface LaneQueuesOptions extends Omit<CommandConsumerOptions, "durable" | "concurrency"> {
  jsm: JetStreamManager;
  /** The queue of the commands in no lane (those stored before the lanes) first, then one per lane. */
  queues: readonly WorkQueue[];
  /** Messages in hand, all queues together, served in turn (LaneShares). */
  concurrency: number;
  /** Each consumer's unacknowledged messages at most. */
  maxAckPending: number;
}

/**
 * Sets up and consumes a service's queues under one bound, lanes in turn (docs/architecture.md#start-lanes): one
 * owner's backlog in its lane takes the whole bound while no other lane has work, and its share once one has.
 */
export async function consumeLanes(opts: LaneQueuesOptions): Promise<CommandConsumer> {
  const { queues, concurrency, maxAckPending, ...consume } = opts;
  // In order: the first queue's filter may narrow (the timers'), to make room for the lanes' on the work queue.
  for (const { durable, filter } of queues)
    await ensureConsumer(opts.jsm, opts.stream, {
      durable,
      filter,
      ackWaitMs: opts.ackWaitMs,
      // Failed attempts are counted per process (consumeCommands' maxDeliver).
      maxDeliver: -1,
      maxAckPending,
    });
  const shares = LaneShares.fixed(concurrency);
  const consumers = await Promise.all(
    queues.map(({ durable }) => consumeCommands({ ...consume, durable, concurrency: shares.lane() })),
  );
  return {
    async stop(graceMs?: number) {
      await Promise.all(consumers.map((c) => c.stop(graceMs)));
    },
  };
}
