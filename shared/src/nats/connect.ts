import { connect } from "@nats-io/transport-node";
import { createInbox, type NatsConnection } from "@nats-io/nats-core";
import type { NatsAuth } from "./credentials";
import "./settled-requests";

const PENDING_LIMIT_BYTES = 4 * 1024 * 1024;

/** The inbox prefix each connection was opened with: replies to it arrive under that prefix. */
const inboxPrefixes = new WeakMap<NatsConnection, string>();

export interface ConnectOptions {
  auth?: NatsAuth;
  /**
   * Where replies arrive (default `_INBOX`). A service user may subscribe only under its own
   * prefix (`_INBOX_<service>`), so that it cannot read the replies sent to another service.
   */
  inboxPrefix?: string;
}

/**
 * One connection per process: reconnects forever, as a service should, to any server `url`
 * lists (comma-separated) or the cluster announced since. `noAsyncTraces`: the
 * client otherwise captures a stack trace for every request (a KV write, a publish ack), which
 * measured as a fifth of the executor's CPU under load.
 */
export async function connectNats(url: string, name: string, opts: ConnectOptions = {}): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    noAsyncTraces: true,
    // nats.js writes its outbound buffer once per microtask run, but writes each command at once
    // when the buffer already holds 32 KB: under load every publish past that was a syscall of its
    // own. The option is nats-core's, left out of its types.
    ...{ pendingLimit: PENDING_LIMIT_BYTES },
    ...opts.auth,
    ...(opts.inboxPrefix === undefined ? {} : { inboxPrefix: opts.inboxPrefix }),
  });
  if (opts.inboxPrefix !== undefined) inboxPrefixes.set(nc, opts.inboxPrefix);
  return nc;
}

/** A fresh reply subject under the connection's inbox prefix. */
export function newInbox(nc: NatsConnection): string {
  return createInbox(inboxPrefixes.get(nc));
}
