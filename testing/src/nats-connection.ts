import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll } from "vitest";
import { startNatsServer, type NatsServerHandle } from "./nats-server";

/**
 * A nats-server of this test file's own and a connection to it, opened before its tests and closed after them (a
 * subpath of its own: scripts outside vitest import `@wf/testing`, and importing vitest there throws). Read `.server`
 * and `.nc` inside a test or hook.
 */
export function useNatsConnection(): { readonly server: NatsServerHandle; readonly nc: NatsConnection } {
  let server: NatsServerHandle | undefined;
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useNatsConnection: not started yet; read it in a test or hook");
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get nc() {
      return started(nc);
    },
  };
}
