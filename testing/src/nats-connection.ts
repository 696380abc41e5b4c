import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll } from "vitest";
import { startNatsServer, type NatsServerHandle } from "./nats-server";

// A subpath of its own (`@wf/testing/nats-connection`): scripts outside vitest (`npm run bench`) import `@wf/testing`,
// and importing vitest there throws.

/**
 * A nats-server of this test file's own (or of the describe block that calls this), started before its tests and
 * stopped after them. Read `.server` inside a test or hook: the server starts in beforeAll, after the file is loaded.
 */
export function useNatsServer(opts: Parameters<typeof startNatsServer>[0] = {}): { readonly server: NatsServerHandle } {
  let server: NatsServerHandle | undefined;
  beforeAll(async () => {
    server = await startNatsServer(opts);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server() {
      return started("useNatsServer", server);
    },
  };
}

/** The same, with a connection to it, opened after the server starts and closed before it stops. */
export function useNatsConnection(): { readonly server: NatsServerHandle; readonly nc: NatsConnection } {
  const nats = useNatsServer();
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    nc = await connect({ servers: nats.server.url });
  });
  afterAll(async () => {
    await nc?.close();
  });
  return {
    get server() {
      return nats.server;
    },
    get nc() {
      return started("useNatsConnection", nc);
    },
  };
}

function started<T>(what: string, value: T | undefined): T {
  if (value === undefined) throw new Error(`${what}: not started yet; read it in a test or hook`);
  return value;
}
