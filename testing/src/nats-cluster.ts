import { createServer } from "node:net";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats } from "@wf/shared/nats";
import { startNatsServer, type NatsServerHandle } from "./nats-server";
import { waitFor } from "./wait-for";

export interface NatsClusterHandle {
  readonly servers: readonly NatsServerHandle[];
  /** Every member's client URL, comma-separated, as NATS_URL takes them. */
  readonly url: string;
  /** Resolves once JetStream answers with a meta leader (after a start or a member's restart). */
  jetStreamReady(timeoutMs?: number): Promise<void>;
  /** Kills every member and removes their stores. */
  stop(): Promise<void>;
}

/**
 * Starts `size` nats-servers with JetStream, clustered with routes on 127.0.0.1: free ports
 * picked in advance so each member's routes name the others, a store dir each. A member killed
 * with `kill()` comes back with `start()` on the same ports and store, as a restarted node does.
 */
export async function startNatsCluster(size = 3, name = "wf-test"): Promise<NatsClusterHandle> {
  const clientPorts = await freePorts(size);
  const routePorts = await freePorts(size);
  const routes = routePorts.map((p) => `nats-route://127.0.0.1:${p}`).join(",");
  const servers = await Promise.all(
    clientPorts.map((port, i) =>
      startNatsServer({
        port,
        args: [
          "--name",
          `${name}-${i + 1}`,
          "--cluster_name",
          name,
          "--cluster",
          `nats://127.0.0.1:${routePorts[i]}`,
          "--routes",
          routes,
        ],
      }),
    ),
  );
  const url = servers.map((s) => s.url).join(",");
  const handle: NatsClusterHandle = {
    servers,
    url,
    async jetStreamReady(timeoutMs = 30_000) {
      const nc = await connectNats(url, "wf-test-cluster-probe");
      try {
        // Until the members elected a meta leader, JetStream requests time out or fail.
        await waitFor(
          async () => (await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo()) !== undefined,
          {
            timeoutMs,
            intervalMs: 200,
            what: "the cluster's JetStream meta leader",
          },
        );
      } finally {
        await nc.close();
      }
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
  await handle.jetStreamReady();
  return handle;
}

async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}
