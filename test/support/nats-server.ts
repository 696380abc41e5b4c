// Not in runtime.ts, as this imports vitest: scripts run outside vitest (`npm run bench`, test/bench/login-flood.ts)
// import runtime.ts, and importing vitest there throws.
import { afterAll, beforeAll } from "vitest";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";

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
      if (!server) throw new Error("useNatsServer: the nats-server is not started yet; read .server in a test or hook");
      return server;
    },
  };
}
