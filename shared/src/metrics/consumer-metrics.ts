import type { ConsumerInfo } from "@nats-io/jetstream";
import { Gauge } from "prom-client";

const labelNames = ["stream", "consumer"] as const;

const pending = new Gauge({
  name: "wf_consumer_pending_messages",
  help: "Messages of the stream that the durable consumer has not delivered yet (num_pending), as of the last scrape.",
  labelNames,
  registers: [],
});
const ackPending = new Gauge({
  name: "wf_consumer_ack_pending_messages",
  help: "Messages the durable consumer delivered and that are not acknowledged yet (num_ack_pending), as of the last scrape.",
  labelNames,
  registers: [],
});
const redelivered = new Gauge({
  name: "wf_consumer_redelivered_messages",
  help: "Unacknowledged messages of the durable consumer that were delivered more than once (num_redelivered), as of the last scrape.",
  labelNames,
  registers: [],
});

/** The gauges of the durable consumers a process pulls from, set from consumer info on scrape (PlatformHealth). */
export const consumerMetrics = [pending, ackPending, redelivered];

export function recordConsumerInfo(
  stream: string,
  consumer: string,
  info: Pick<ConsumerInfo, "num_pending" | "num_ack_pending" | "num_redelivered">,
): void {
  const labels = { stream, consumer };
  pending.set(labels, info.num_pending);
  ackPending.set(labels, info.num_ack_pending);
  redelivered.set(labels, info.num_redelivered);
}
