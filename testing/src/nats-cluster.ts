import { createServer } from "node:net";
import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connectNats } from "@wf/shared/nats";
import { startNatsServer, type NatsServerHandle } from "./nats-server";
import { waitFor } from "./wait-for";

/** The stream that proves the cluster ready, removed once it has. */
const READY_PROBE = "WF_TEST_CLUSTER_READY";
/** How much of each member's log a failure shows. */
const LOG_TAIL = 3_000;

export interface NatsClusterHandle {
  readonly servers: readonly NatsServerHandle[];
  /** Every member's client URL, comma-separated, as NATS_URL takes them. */
  readonly url: string;
  /** Resolves once every member holds a current replica of a new stream (after a start or a member's restart). */
  jetStreamReady(timeoutMs?: number): Promise<void>;
  /** The end of every member's log, for a failure's message. */
  logTails(chars?: number): string;
  /** Kills every member and removes their stores. */
  stop(): Promise<void>;
}

/**
 * Starts `size` nats-servers with JetStream, clustered with routes on 127.0.0.1: free ports
 * picked in advance so each member's routes name the others, a store dir each. A member killed
 * with `kill()` comes back with `start()` on the same ports and store, as a restarted node does.
 * Members not ready within `readyTimeoutMs` are stopped before it throws: its caller has nothing to stop them with.
 */
export async function startNatsCluster(
  size = 3,
  name = "wf-test",
  readyTimeoutMs = 30_000,
): Promise<NatsClusterHandle> {
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
        // A meta leader answers account info with a quorum of members; a member still joining (slow on a loaded
        // machine) leaves streams of `size` replicas unplaceable or their followers behind. So the probe is such a
        // stream, led and with every follower current.
        await waitFor(
          async () => {
            const jsm = await jetstreamManager(nc, { timeout: 2_000 });
            const info = await jsm.streams.add({
              name: READY_PROBE,
              subjects: [`${READY_PROBE}.>`],
              storage: StorageType.Memory,
              num_replicas: size,
            });
            const followers = info.cluster?.replicas ?? [];
            return (
              info.cluster?.leader !== undefined && followers.length === size - 1 && followers.every((r) => r.current)
            );
          },
          { timeoutMs, intervalMs: 200, what: `a stream of ${size} replicas on the cluster, every follower current` },
        );
        await (await jetstreamManager(nc)).streams.delete(READY_PROBE);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n${handle.logTails()}`);
      } finally {
        await nc.close();
      }
    },
    logTails(chars = LOG_TAIL) {
      return servers.map((s, i) => `--- member ${i + 1}, log end:\n${s.log().slice(-chars)}`).join("\n");
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
  try {
    await handle.jetStreamReady(readyTimeoutMs);
  } catch (err) {
    await handle.stop();
    throw err;
  }
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
