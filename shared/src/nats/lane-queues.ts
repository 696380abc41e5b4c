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
  /**
   * Unacknowledged messages at most, all queues together: each queue's consumer has an even share (queueAckPending).
   */
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
      maxAckPending: queueAckPending(maxAckPending, queues.length, concurrency),
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

/**
 * One queue's share of a service's bound on unacknowledged messages (`total`, split evenly over its `queues`), so that
 * one owner's flood fills its lane's share, not the whole: each lane kept the single queue's bound before
 * (docs/architecture.md#start-lanes). Never under `concurrency`, what one lane alone may have in hand.
 */
function queueAckPending(total: number, queues: number, concurrency: number): number {
  return Math.max(concurrency, Math.floor(total / queues));
}
