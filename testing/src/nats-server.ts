import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { ENV_SCHEMA } from "@wf/shared/config";

export interface NatsServerHandle {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  readonly version: string;
  /** The HTTP monitoring endpoint (`/varz`, `/connz`), when started with `monitor`. */
  readonly monitorUrl: string | undefined;
  /** SIGKILL, as a crash would. The store dir is kept so `start()` can bring the same data back. */
  kill(): Promise<void>;
  /** Start again on the same port and store dir (after kill). */
  start(): Promise<void>;
  /** Kill and remove the store dir. */
  stop(): Promise<void>;
  /** What the server logged since it (last) started, e.g. permission violations. */
  log(): string;
}

export interface NatsServerOptions {
  /** A configuration file (users, permissions); the listen address, port and store are the launcher's. */
  config?: string;
  /** The server's environment: the configuration may read passwords from it. */
  env?: Record<string, string>;
  /** The client port; a random one when unset. A cluster's members know each other's in advance. */
  port?: number;
  /** More command-line arguments (a cluster's name, routes and server name). */
  args?: string[];
  /** Serves HTTP monitoring on a free port of its own (benchmarks count messages through it). */
  monitor?: boolean;
}

/** Past this, a server's log keeps its end only. */
const LOG_CHARS = 1_000_000;

const live = new Set<ChildProcess>();
// A crashing test runner must not leave servers behind.
process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

/** The binary tests start: NATS_SERVER_BIN, as the service reads it. */
export function natsServerBin(): string {
  return process.env.NATS_SERVER_BIN || ENV_SCHEMA.NATS_SERVER_BIN.default;
}

function launch(
  args: string[],
  env?: Record<string, string>,
): Promise<{ proc: ChildProcess; port: number; version: string; log: () => string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(natsServerBin(), args, {
      stdio: ["ignore", "ignore", "pipe"],
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    live.add(proc);
    let log = "";
    let version = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`nats-server did not report readiness within 10 s:\n${log}`));
    }, 10_000);
    proc.once("error", (err) => {
      clearTimeout(timer);
      reject(
        new Error(
          `cannot start ${natsServerBin()} (${err.message}); install it: apt-get install nats-server, or see https://docs.nats.io`,
        ),
      );
    });
    proc.once("exit", (code) => {
      live.delete(proc);
      clearTimeout(timer);
      reject(new Error(`nats-server exited with ${code}:\n${log}`));
    });
    proc.stderr!.setEncoding("utf8");
    proc.stderr!.on("data", (chunk: string) => {
      log += chunk;
      const v = /Version:\s+(\S+)/.exec(log);
      if (v) version = v[1]!;
      const m = /Listening for client connections on [^\s]+:(\d+)/.exec(log);
      if (m && /Server is ready/.test(log)) {
        clearTimeout(timer);
        proc.removeAllListeners("exit");
        proc.once("exit", () => live.delete(proc));
        proc.stderr!.removeAllListeners("data");
        proc.stderr!.on("data", (more: string) => {
          log = (log + more).slice(-LOG_CHARS);
        });
        resolve({ proc, port: Number(m[1]), version, log: () => log });
      }
    });
  });
}

/** Starts a private nats-server with JetStream on a random port and a temp store dir. */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const storeDir = await mkdtemp(join(tmpdir(), "wf-nats-"));
  const monitorPort = opts.monitor ? await freePort() : undefined;
  const config = [
    ...(opts.config === undefined ? [] : ["-c", opts.config]),
    ...(opts.args ?? []),
    ...(monitorPort === undefined ? [] : ["-m", String(monitorPort)]),
  ];
  let { proc, port, version, log } = await launch(
    [...config, "-a", "127.0.0.1", "-p", String(opts.port ?? -1), "-js", "-sd", storeDir],
    opts.env,
  ).catch(async (err: unknown) => {
    await rm(storeDir, { recursive: true, force: true });
    throw err;
  });
  let running = true;
  const handle: NatsServerHandle = {
    get url() {
      return `nats://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    storeDir,
    monitorUrl: monitorPort === undefined ? undefined : `http://127.0.0.1:${monitorPort}`,
    get version() {
      return version;
    },
    async kill() {
      if (!running) return;
      running = false;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGKILL");
      await exited;
    },
    async start() {
      if (running) return;
      ({ proc, port, version, log } = await launch(
        [...config, "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir],
        opts.env,
      ));
      running = true;
    },
    async stop() {
      await handle.kill();
      await rm(storeDir, { recursive: true, force: true });
    },
    log: () => log(),
  };
  return handle;
}

/** A port nothing listens on now (nats-server's `-m` takes no "any free port"). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Compares dotted versions: is `version` at least `min`? For skipping tests of newer server features. */
export function serverAtLeast(version: string, min: string): boolean {
  const a = version.replace(/^v/, "").split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}
