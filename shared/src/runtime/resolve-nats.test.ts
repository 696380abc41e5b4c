import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { connectNats } from "../nats/connect";
import { createLogger } from "../log/index";
import { natsServerBin, startNatsServer } from "../testing/index";
import { resolveNats } from "./resolve-nats";

const log = createLogger("silent");

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe("finding a NATS server (npm start's embedded default)", () => {
  it("NATS_URL wins", async () => {
    const r = await resolveNats("nats://example:1234", "/nonexistent", log, { binary: natsServerBin() });
    expect(r).toEqual({ url: "nats://example:1234", child: null });
  });

  it("uses a server already answering on the local port", async () => {
    const server = await startNatsServer();
    try {
      const r = await resolveNats(undefined, "/nonexistent", log, { local: { host: "127.0.0.1", port: server.port }, binary: natsServerBin() });
      expect(r.url).toBe(server.url);
      expect(r.child).toBeNull();
    } finally {
      await server.stop();
    }
  });

  it("otherwise starts nats-server with JetStream, its data in <dataDir>/nats", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wf-data-"));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true, maxRetries: 2 }));
    const port = await freePort();
    const r = await resolveNats(undefined, dataDir, log, { local: { host: "127.0.0.1", port }, binary: natsServerBin() });
    try {
      expect(r.child).not.toBeNull();
      const nc = await connectNats(r.url, "probe");
      const { jetstreamManager } = await import("@nats-io/jetstream");
      const info = await (await jetstreamManager(nc)).getAccountInfo();
      expect(info.limits).toBeDefined();
      await nc.close();
      expect(await readdir(join(dataDir, "nats"))).toContain("jetstream");
    } finally {
      r.child?.kill("SIGKILL");
    }
  });

  it("says exactly how to get one when none can be had", async () => {
    const port = await freePort();
    const dataDir = await mkdtemp(join(tmpdir(), "wf-data-"));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true, maxRetries: 2 }));
    const err = await resolveNats(undefined, dataDir, log, {
      local: { host: "127.0.0.1", port },
      binary: "nats-server-that-is-not-installed",
    }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("starting `nats-server-that-is-not-installed` failed");
    expect((err as Error).message).toContain("apt-get install nats-server");
    expect((err as Error).message).toContain("NATS_URL");
  });
});
