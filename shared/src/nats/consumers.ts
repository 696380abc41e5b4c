import { AckPolicy, DeliverPolicy, type JetStreamManager, type ConsumerConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import { isNotFound } from "./streams";
import { whileStarting } from "./while-starting";

/**
 * Creates or updates a durable pull consumer shared by every replica of a service. A consumer
 * created now starts at the first message the stream holds; with `fromNew`, at the next one; with
 * `startAt` (epoch ms), at the first one stored since then.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  cfg: {
    durable: string;
    filter: string;
    ackWaitMs: number;
    maxDeliver: number;
    maxAckPending: number;
    fromNew?: boolean;
    startAt?: number;
  },
): Promise<void> {
  const config: Partial<ConsumerConfig> = {
    durable_name: cfg.durable,
    ack_policy: AckPolicy.Explicit,
    ...(cfg.startAt !== undefined
      ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(cfg.startAt).toISOString() }
      : { deliver_policy: cfg.fromNew ? DeliverPolicy.New : DeliverPolicy.All }),
    filter_subject: cfg.filter,
    ack_wait: nanos(cfg.ackWaitMs),
    max_deliver: cfg.maxDeliver,
    max_ack_pending: cfg.maxAckPending,
  };
  await whileStarting(async () => {
    try {
      const current = (await jsm.consumers.info(stream, cfg.durable)).config;
      // Every update is a proposal the cluster agrees on: sent only when a setting changed.
      const changed = (["filter_subject", "ack_wait", "max_deliver", "max_ack_pending"] as const).some(
        (k) => current[k] !== config[k],
      );
      if (changed) await jsm.consumers.update(stream, cfg.durable, config);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.consumers.add(stream, config);
      } catch (addErr) {
        if (!/already in use|exists/i.test(String(addErr))) throw addErr;
      }
    }
  });
}
