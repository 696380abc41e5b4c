import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";

/** One connection per process: reconnects forever, as a service should. */
export function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
}
