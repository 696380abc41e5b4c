import { createServer } from "node:http";
import { SIDE_EFFECTS_HOST } from "../support/egress-allowance";

/** An HTTP server on the host's loopback that steps try to reach; it counts who got through. */
export interface TargetServer {
  /** `127.0.0.2:<port>`: as an egress allow entry, and what a step connects to. */
  readonly address: string;
  readonly port: number;
  readonly url: string;
  /** Requests it answered so far. */
  hits(): number;
  close(): Promise<void>;
}

/** Answers every request `reached <name>`. */
export async function startTargetServer(name: string): Promise<TargetServer> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.end(`reached ${name}`);
  });
  await new Promise<void>((resolve) => server.listen(0, SIDE_EFFECTS_HOST, resolve));
  const port = (server.address() as { port: number }).port;
  return {
    address: `${SIDE_EFFECTS_HOST}:${port}`,
    port,
    url: `http://${SIDE_EFFECTS_HOST}:${port}/`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
