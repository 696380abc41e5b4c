import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { join, resolve } from "node:path";
import { connect } from "@nats-io/transport-node";
import { z } from "zod";
import { ConfigError } from "../errors/wf-error";
import type { Logger } from "../log/index";
import type { NatsTarget } from "../nats/credentials";
import { createPrivateFileOnce, ensurePrivateDir, readPrivateFileIfAny, writePrivateFile } from "./private-file";

const HOST = "127.0.0.1";
/** How long a start waits for another process of the same data directory to start the server. */
const START_WAIT_MS = 20_000;

/** The embedded server's files in WF_DATA_DIR. */
export function embeddedNatsFiles(dataDir: string) {
  const dir = resolve(dataDir);
  return {
    dir,
    /** `{user, password}`, 0600, made at the first start: what every client of the server logs in with. */
    credentials: join(dir, "nats-credentials.json"),
    /** The child's configuration (it holds the password, so not on the command line), 0600. */
    config: join(dir, "nats-server.conf"),
    /** The URL of the server last started for this directory, for clients that start none. */
    url: join(dir, "nats-url"),
    /** Held (its pid inside) by the process whose child runs, while it runs. */
    lock: join(dir, "nats-server.lock"),
    /** The JetStream store. */
    store: join(dir, "nats"),
  };
}
type Files = ReturnType<typeof embeddedNatsFiles>;

const Credentials = z.object({ user: z.string().min(1), password: z.string().min(16) });

/** The credentials of the data directory's server, made (256 random bits) on first use. */
async function embeddedCredentials(files: Files): Promise<{ user: string; pass: string }> {
  const fresh = { user: "wf", password: randomBytes(32).toString("base64url") };
  const text = await createPrivateFileOnce(files.credentials, `${JSON.stringify(fresh)}\n`);
  return parseCredentials(files, text);
}

function parseCredentials(files: Files, text: string): { user: string; pass: string } {
  let parsed;
  try {
    parsed = Credentials.safeParse(JSON.parse(text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success)
    throw new ConfigError(
      `${files.credentials} is not a credentials file of this service ({"user": ..., "password": ...}); remove it to make a new one`,
    );
  return { user: parsed.data.user, pass: parsed.data.password };
}

/**
 * The server `npm start` runs for `dataDir`, as a client that starts none (the wf CLI) finds
 * it: undefined when none was ever started there.
 */
export async function recordedNats(dataDir: string): Promise<NatsTarget | undefined> {
  const files = embeddedNatsFiles(dataDir);
  const [url, credentials] = await Promise.all([
    readFile(files.url, "utf8").catch(missingAsUndefined),
    readPrivateFileIfAny(files.credentials),
  ]);
  if (url === undefined || credentials === undefined) return undefined;
  return { url: url.trim(), auth: parseCredentials(files, credentials) };
}

export interface EmbeddedNats {
  target: NatsTarget;
  /** Set when this process started the server; stopped on exit. */
  child: ChildProcess | null;
}

/**
 * The embedded default (NATS_URL unset): the server a process of the same data directory
 * runs, when it answers and takes our credentials; else a child nats-server started here, with
 * JetStream in `<dataDir>/nats`, a user and password from `<dataDir>/nats-credentials.json`, on
 * 127.0.0.1:`preferredPort` or, when that is taken, a free port. A server that takes clients
 * without credentials is never used: anything on the host could read and change all through it.
 */
export async function embeddedNats(
  dataDir: string,
  log: Logger,
  opts: { binary: string; preferredPort?: number },
): Promise<EmbeddedNats> {
  const files = embeddedNatsFiles(dataDir);
  await ensurePrivateDir(files.dir);
  const auth = await embeddedCredentials(files);
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    const url = (await readFile(files.url, "utf8").catch(missingAsUndefined))?.trim();
    if (url !== undefined && (await requiresAndTakes(url, auth))) {
      log.info("using the nats-server started for this data directory", { url, dataDir: files.dir });
      return { target: { url, auth }, child: null };
    }
    const release = await takeStartLock(files.lock);
    if (release) {
      try {
        return await startChild(files, auth, log, opts.binary, opts.preferredPort ?? 4222, release);
      } catch (err) {
        release();
        throw err;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(
        `another process is starting the nats-server of ${files.dir} (its pid is in ${files.lock}) and it did not answer within ${START_WAIT_MS / 1000} s`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether the server at `url` asks for credentials and takes these: then it is this directory's. */
async function requiresAndTakes(url: string, auth: { user: string; pass: string }): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, ...auth, timeout: 2_000, reconnect: false });
    const required = nc.info?.auth_required === true;
    await nc.close();
    return required;
  } catch {
    return false;
  }
}

/**
 * One process at a time starts the directory's server (two on one store would corrupt it). The
 * lock file names its holder; a lock whose process is gone (killed) is taken over.
 */
async function takeStartLock(path: string): Promise<(() => void) | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      let held = true;
      return () => {
        if (held) rmSync(path, { force: true });
        held = false;
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = Number((await readFile(path, "utf8").catch(() => "")).trim());
    if (Number.isInteger(holder) && holder > 0 && isRunning(holder)) return null;
    await unlink(path).catch(missingAsUndefined);
  }
  return null;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function startChild(
  files: Files,
  auth: { user: string; pass: string },
  log: Logger,
  binary: string,
  preferredPort: number,
  release: () => void,
): Promise<EmbeddedNats> {
  let port = preferredPort;
  if (!(await portFree(preferredPort))) {
    port = -1;
    if ((await infoAt(preferredPort))?.auth_required === false) {
      log.warn(
        `a nats-server that takes clients without credentials answers on ${HOST}:${preferredPort}: not used, since anything on this host could read and change every workflow through it. ` +
          "Starting one with credentials on another port; to use that other server, give it users and set NATS_URL with NATS_USER and NATS_PASSWORD",
      );
    }
  }
  await mkdir(files.store, { recursive: true, mode: 0o700 });
  await writePrivateFile(files.config, serverConfig(files, port, auth));
  // In a process group of its own: a terminal's Ctrl-C reaches the whole foreground group, and a server that shut down
  // at once left the service's own stop waiting on it for good. The service stops it with SIGTERM once it has stopped
  // itself. (Started with SIGINT ignored would not do: nats-server listens for SIGINT, which undoes that.) Left
  // running by a service killed outright, it is the one the next start finds for this data directory.
  const child = spawn(binary, ["-c", files.config], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  const started = await new Promise<number | string>((done) => {
    let out = "";
    child.once("error", (err) => done(err.message));
    child.once("exit", (code) => done(`exited with ${code}: ${out.trim().split("\n").slice(-3).join(" | ")}`));
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (s: string) => {
      out += s;
      const listening = /Listening for client connections on [^\s]+:(\d+)/.exec(out);
      if (listening && out.includes("Server is ready")) {
        child.stderr!.removeAllListeners("data");
        child.stderr!.resume();
        child.removeAllListeners("exit");
        done(Number(listening[1]));
      }
    });
  });
  if (typeof started === "string") {
    throw new Error(
      `no NATS server: NATS_URL is not set, and starting \`${binary}\` failed (${started}).\n` +
        "Get one of these:\n" +
        "  - Debian/Ubuntu: sudo apt-get install nats-server   (then run `npm start` again)\n" +
        "  - any OS: download nats-server from https://github.com/nats-io/nats-server/releases and put it on PATH, or name it in NATS_SERVER_BIN\n" +
        "  - or point NATS_URL at a server started with JetStream (`nats-server -js`), with its credentials in NATS_USER and NATS_PASSWORD",
    );
  }
  const stop = () => {
    child.kill("SIGTERM");
    release();
  };
  process.once("exit", stop);
  child.once("exit", () => {
    process.off("exit", stop);
    release();
  });
  const url = `nats://${HOST}:${started}`;
  try {
    await writePrivateFile(files.url, `${url}\n`);
  } catch (err) {
    stop();
    throw err;
  }
  log.info("started nats-server as a child process", { url, dataDir: files.dir });
  return { target: { url, auth }, child };
}

function serverConfig(files: Files, port: number, auth: { user: string; pass: string }): string {
  // JSON strings are valid quoted strings of the nats-server configuration format.
  return [
    `# The nats-server of ${files.dir}, written by the workflow service at each start (edits are lost).`,
    `host: ${JSON.stringify(HOST)}`,
    `port: ${port}`,
    `jetstream { store_dir: ${JSON.stringify(files.store)} }`,
    `authorization { user: ${JSON.stringify(auth.user)}, password: ${JSON.stringify(auth.pass)} }`,
    "",
  ].join("\n");
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const srv = createServer();
    srv.once("error", () => done(false));
    srv.listen(port, HOST, () => srv.close(() => done(true)));
  });
}

/** The INFO a nats-server sends first, if one answers on the port. */
function infoAt(port: number): Promise<{ auth_required?: boolean } | undefined> {
  return new Promise((done) => {
    const sock = createConnection({ host: HOST, port });
    const finish = (info?: { auth_required?: boolean }) => {
      sock.destroy();
      done(info);
    };
    sock.setTimeout(500, () => finish());
    sock.once("error", () => finish());
    sock.once("data", (b) => {
      const line = b.toString("utf8");
      try {
        finish(line.startsWith("INFO ") ? (JSON.parse(line.slice(5)) as { auth_required?: boolean }) : undefined);
      } catch {
        finish();
      }
    });
  });
}

function missingAsUndefined(err: NodeJS.ErrnoException): undefined {
  if (err.code === "ENOENT") return undefined;
  throw err;
}
