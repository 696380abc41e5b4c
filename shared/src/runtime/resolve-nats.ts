import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createConnection } from "node:net";
import { resolve } from "node:path";
import type { Logger } from "../log/index";

export interface ResolvedNats {
  url: string;
  /** Set when we started nats-server ourselves; stopped on exit. */
  child: ChildProcess | null;
}

const LOCAL = { host: "127.0.0.1", port: 4222 };

/**
 * The embedded default: NATS_URL if set; else a nats-server already answering on
 * 127.0.0.1:4222; else a child started from `binary` (NATS_SERVER_BIN) with JetStream in
 * `<dataDir>/nats`. (`local` exists for tests.)
 */
export async function resolveNats(
  natsUrl: string | undefined,
  dataDir: string,
  log: Logger,
  { local = LOCAL, binary }: { local?: { host: string; port: number }; binary: string },
): Promise<ResolvedNats> {
  if (natsUrl) return { url: natsUrl, child: null };
  if (await answers(local.host, local.port)) {
    log.info(`using the nats-server answering on ${local.host}:${local.port}`);
    return { url: `nats://${local.host}:${local.port}`, child: null };
  }
  const storeDir = resolve(dataDir, "nats");
  mkdirSync(storeDir, { recursive: true });
  const child = spawn(binary, ["-a", local.host, "-p", String(local.port), "-js", "-sd", storeDir], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const started = await new Promise<true | string>((done) => {
    let log2 = "";
    child.once("error", (err) => done(err.message));
    child.once("exit", (code) => done(`exited with ${code}: ${log2.trim().split("\n").slice(-3).join(" | ")}`));
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (s: string) => {
      log2 += s;
      if (log2.includes("Server is ready")) {
        child.stderr!.removeAllListeners("data");
        child.stderr!.resume();
        child.removeAllListeners("exit");
        done(true);
      }
    });
  });
  if (started !== true) {
    throw new Error(
      `no NATS server: NATS_URL is not set, nothing answers on ${local.host}:${local.port}, and starting \`${binary}\` failed (${started}).\n` +
        "Get one of these:\n" +
        "  - Debian/Ubuntu: sudo apt-get install nats-server   (then run `npm start` again)\n" +
        "  - any OS: download nats-server from https://github.com/nats-io/nats-server/releases and put it on PATH, or name it in NATS_SERVER_BIN\n" +
        "  - or point NATS_URL at a server started with JetStream (`nats-server -js`)",
    );
  }
  const stop = () => child.kill("SIGTERM");
  process.once("exit", stop);
  child.once("exit", () => process.off("exit", stop));
  log.info("started nats-server as a child process", { storeDir, port: local.port });
  return { url: `nats://${local.host}:${local.port}`, child };
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const sock = createConnection({ host, port });
    const finish = (ok: boolean) => {
      sock.destroy();
      done(ok);
    };
    sock.setTimeout(500, () => finish(false));
    sock.once("data", (b) => finish(b.toString("utf8").startsWith("INFO")));
    sock.once("error", () => finish(false));
  });
}
