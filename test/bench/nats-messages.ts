import { round } from "./stats";

/** Messages nats-server received (publishes, acks, requests) and sent (acks, replies, deliveries). */
export interface NatsMessages {
  received: number;
  sent: number;
}

/** nats-server's message counters since it started, from its monitoring endpoint; null without it. */
export async function natsMessages(monitorUrl: string | undefined): Promise<NatsMessages | null> {
  if (monitorUrl === undefined) return null;
  const varz = (await (await fetch(`${monitorUrl}/varz`)).json()) as { in_msgs: number; out_msgs: number };
  return { received: varz.in_msgs, sent: varz.out_msgs };
}

/** The counters' growth between two readings, per `n` (workflows); null when either reading or `n` is missing. */
export function messagesPer(a: NatsMessages | null, b: NatsMessages | null, n: number): NatsMessages | null {
  if (!a || !b || n <= 0) return null;
  const per = (x: number, y: number) => round((y - x) / n, 2);
  return { received: per(a.received, b.received), sent: per(a.sent, b.sent) };
}
