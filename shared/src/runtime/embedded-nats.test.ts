import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../config/env";
import { createLogger } from "../log/index";
import { connectNats } from "../nats/connect";
import { natsServerBin, startNatsServer } from "@wf/testing";
import { embeddedNatsFiles, recordedNats } from "./embedded-nats";
import { resolveNats, type ResolvedNats } from "./resolve-nats";

const log = createLogger("silent");

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "wf-data-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true, maxRetries: 2 }));
  return dir;
}

/** npm start's resolution for `dir`, with nats-server's child stopped when the test ends. */
async function embedded(dir: string, preferredPort: number, env: Record<string, string> = {}): Promise<ResolvedNats> {
  const r = await resolveNats(loadConfig({ WF_DATA_DIR: dir, NATS_SERVER_BIN: natsServerBin(), ...env }), log, {
    preferredPort,
  });
  if (r.child) {
    const child = r.child;
    onTestFinished(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGKILL");
      await exited;
    });
  }
  return r;
}

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe("finding a NATS server (npm start's embedded default)", () => {
  it("NATS_URL wins, with the environment's credentials", async () => {
    const r = await resolveNats(
      loadConfig({ NATS_URL: "nats://example:1234", NATS_USER: "edge", NATS_PASSWORD: "pw" }),
      log,
    );
    expect(r).toEqual({ target: { url: "nats://example:1234", auth: { user: "edge", pass: "pw" } }, child: null });
  });

  it("starts nats-server with JetStream and credentials of its own; it refuses clients without them", async () => {
    const dir = await dataDir();
    const port = await freePort();
    const r = await embedded(dir, port);
    expect(r.child).not.toBeNull();
    expect(r.target.url).toBe(`nats://127.0.0.1:${port}`);
    expect(r.target.auth).toMatchObject({ user: "wf" });

    await expect(connect({ servers: r.target.url, reconnect: false })).rejects.toMatchObject({
      name: "AuthorizationError",
    });
    await expect(
      connect({ servers: r.target.url, reconnect: false, user: "wf", pass: "not-the-password" }),
    ).rejects.toMatchObject({
      name: "AuthorizationError",
    });

    const nc = await connectNats(r.target.url, "probe", { auth: r.target.auth });
    const info = await (await jetstreamManager(nc)).getAccountInfo();
    expect(info.limits).toBeDefined();
    await nc.close();
    expect(await readdir(join(dir, "nats"))).toContain("jetstream");
  });

  it("keeps the credentials and the server's configuration in files only its user reads, never on a command line", async () => {
    const dir = await dataDir();
    const r = await embedded(dir, await freePort());
    const files = embeddedNatsFiles(dir);
    expect(await mode(files.credentials)).toBe(0o600);
    expect(await mode(files.config)).toBe(0o600);
    expect(await mode(files.url)).toBe(0o600);
    const { pass } = r.target.auth as { user: string; pass: string };
    expect(pass.length).toBeGreaterThanOrEqual(32);
    expect(await readFile(files.config, "utf8")).toContain(pass);
    const cmdline = await readFile(`/proc/${r.child!.pid}/cmdline`, "utf8");
    expect(cmdline).toContain(files.config);
    expect(cmdline).not.toContain(pass);
  });

  it("a second start of the same data directory uses the first one's server and credentials", async () => {
    const dir = await dataDir();
    const first = await embedded(dir, await freePort());
    const second = await embedded(dir, await freePort());
    expect(second.child).toBeNull();
    expect(second.target).toEqual(first.target);
    // What the wf CLI finds there.
    expect(await recordedNats(dir)).toEqual(first.target);
  });

  it("after its server is gone, starts one again with the same credentials and data", async () => {
    const dir = await dataDir();
    const first = await embedded(dir, await freePort());
    const exited = new Promise((done) => first.child!.once("exit", done));
    first.child!.kill("SIGKILL");
    await exited;
    const again = await embedded(dir, await freePort());
    expect(again.child).not.toBeNull();
    expect(again.target.auth).toEqual(first.target.auth);
  });

  it("never uses a server that takes clients without credentials: starts its own on another port", async () => {
    const open = await startNatsServer();
    onTestFinished(() => open.stop());
    const dir = await dataDir();
    const r = await embedded(dir, open.port);
    expect(r.child).not.toBeNull();
    expect(r.target.url).not.toBe(open.url);
    await expect(connect({ servers: r.target.url, reconnect: false })).rejects.toMatchObject({
      name: "AuthorizationError",
    });
    const nc = await connectNats(r.target.url, "probe", { auth: r.target.auth });
    expect(nc.info?.auth_required).toBe(true);
    await nc.close();
  });

  it("says exactly how to get one when none can be had", async () => {
    const err = await resolveNats(
      loadConfig({ WF_DATA_DIR: await dataDir(), NATS_SERVER_BIN: "nats-server-that-is-not-installed" }),
      log,
      {
        preferredPort: await freePort(),
      },
    ).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("starting `nats-server-that-is-not-installed` failed");
    expect((err as Error).message).toContain("apt-get install nats-server");
    expect((err as Error).message).toContain("NATS_URL");
  });
});
