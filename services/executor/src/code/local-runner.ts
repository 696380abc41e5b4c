import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { JsHostLink, RoutedRunner } from "./js-host-link";
import { resolvePython, type Python } from "./languages";
import type { RunnerClient } from "./runner-client";
import { RunnerConnection } from "./runner-connection";

/** What to start: one of this directory's process entries, and how. */
export interface RunnerProcess {
  /** The entry's name: `sandbox-process` or `js-host-process`. */
  entry: string;
  args: string[];
  cwd: string;
  /** The uid (and gid) it runs as; the service's when absent. */
  uid?: number;
  /** What it is, in errors: "the sandbox runner process". */
  what: string;
  /** A sandbox runner that hands its JavaScript host's connection to this process (js-host-link.ts). */
  handsOffJs?: boolean;
  /**
   * It runs isolated-vm isolates (the JavaScript host), which need Node's start-up snapshot off.
   * Only it: without the snapshot Node compiles its own modules at start, ~0.1 s of CPU more.
   */
  isolates?: boolean;
  /**
   * From the sources: a directory of bundles to run the entry from instead (WF_SANDBOX_BUNDLE_DIR). Its own
   * processes then run from the bundles beside it.
   */
  bundleDir?: string;
}

/** Run from `npm run build`'s bundles (dist/*.js) rather than from the TypeScript sources. */
const BUILT = import.meta.url.endsWith(".js");
/**
 * From the sources, the TypeScript loader, by absolute URL: the runner's cwd is its private
 * directory, with no node_modules above it. The built runner is plain JavaScript.
 */
const LOADER_FLAGS = BUILT ? [] : ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href];
const STDERR_TAIL_CHARS = 2048;
const CLOSE_GRACE_MS = 3000;

interface Incarnation {
  proc: ChildProcess;
  conn: RunnerConnection;
  /** Its JavaScript host's connection, when it hands the host to this process. */
  link: JsHostLink | undefined;
  /** What runs go to: the connection, or it and the link by language. */
  client: RunnerClient;
  stderrTail: () => string;
  /** Why the client killed it, if it did. */
  killedBecause?: string;
}

/**
 * One runner process (the sandbox runner, forked by the service; the JavaScript host, forked by
 * a runner), forked anew by the next run after it died; runs in flight when it dies fail with the
 * reason.
 */
export class LocalRunner {
  private current: Incarnation | undefined;

  constructor(
    private readonly opts: RunnerProcess,
    /** A runner relaying to the JavaScript host it forked (RunnerConnection). */
    private readonly relay = false,
  ) {}

  get busy(): number {
    return this.current?.conn.alive ? this.current.client.busy : 0;
  }

  /** The live runner's connection, forked anew when there is none or it died. */
  live(): RunnerClient {
    if (this.current?.conn.alive) return this.current.client;
    const proc = spawnRunner(this.opts, this.opts.handsOffJs === true);
    const conn = new RunnerConnection(proc.stdio[3] as Duplex, (why) => this.kill(incarnation, why), this.relay);
    const link = this.opts.handsOffJs ? new JsHostLink(proc) : undefined;
    const incarnation: Incarnation = {
      proc,
      conn,
      link,
      client: link ? new RoutedRunner(conn, link) : conn,
      stderrTail: stderrTail(proc),
    };
    const fail = (how: string): void =>
      failRuns(
        incarnation,
        new Error(endedBecause(this.opts.what, incarnation.killedBecause ?? how, incarnation.stderrTail())),
      );
    // "close" rather than "exit": it comes after stderr is drained, so the error carries all of it.
    proc.on("close", (code, signal) => fail(`exited unexpectedly (${signal ?? `code ${code}`})`));
    proc.on("error", (err) => {
      fail(`failed: ${err.message}`);
      proc.kill("SIGKILL");
    });
    this.current = incarnation;
    return incarnation.client;
  }

  /**
   * Closing the connection has the runner kill its steps, remove their directories and cgroups
   * and exit; one that has not within CLOSE_GRACE_MS is killed.
   */
  async close(): Promise<void> {
    const incarnation = this.current;
    if (!incarnation) return;
    incarnation.killedBecause ??= "was stopped: the code runner was closed";
    failRuns(incarnation, new Error(`${this.opts.what} ${incarnation.killedBecause}`));
    const { proc } = incarnation;
    if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    const timer = setTimeout(() => this.kill(incarnation, "it did not stop"), CLOSE_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  private kill(incarnation: Incarnation, reason: string): void {
    incarnation.killedBecause ??= `was killed: ${reason}`;
    incarnation.proc.kill("SIGKILL");
  }
}

/** Fails the runs in flight and every later one, on the runner's connection and its JavaScript host's. */
function failRuns(incarnation: Incarnation, err: Error): void {
  incarnation.conn.fail(err);
  incarnation.link?.fail(err);
}

/** Keeps the end of a process's stderr, for the error that says why it ended. */
export function stderrTail(proc: ChildProcess): () => string {
  let tail = "";
  proc.stderr?.setEncoding("utf8").on("data", (text: string) => {
    tail = (tail + text).slice(-STDERR_TAIL_CHARS);
  });
  return () => tail.trim();
}

/** Why a process ended, in words: "the sandbox runner process exited unexpectedly (SIGKILL): <its stderr's end>". */
export function endedBecause(what: string, how: string, tail: string): string {
  return `${what} ${how}${tail ? `: ${tail}` : ""}`;
}

/** The bundle beside this one's, or in `bundleDir`, or the source beside this module. */
function entryFile(opts: RunnerProcess): string {
  if (BUILT) return fileURLToPath(new URL(`./${opts.entry}.js`, import.meta.url));
  if (opts.bundleDir !== undefined) return join(opts.bundleDir, `${opts.entry}.js`);
  return fileURLToPath(new URL(`./${opts.entry}.ts`, import.meta.url));
}

/** Forks one of this directory's process entries; `ipc`: with a channel to hand sockets over (fd 4). */
export function spawnRunner(opts: RunnerProcess, ipc: boolean): ChildProcess {
  return spawn(
    process.execPath,
    [
      // Our own flags only, never the service's (inspector, other loaders); isolated-vm needs no snapshot on Node 20+.
      ...(opts.bundleDir === undefined ? LOADER_FLAGS : []),
      ...(opts.isolates ? ["--no-node-snapshot"] : []),
      "--disable-warning=ExperimentalWarning",
      entryFile(opts),
      ...opts.args,
    ],
    {
      cwd: opts.cwd,
      ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid }),
      // Nothing of the service's environment: no credentials for an escaped sandbox to find.
      env: cleanEnv(),
      stdio: ["ignore", "ignore", "pipe", "pipe", ...(ipc ? ["ipc" as const] : [])],
      // A session of its own: nothing it starts shares the service's controlling terminal.
      detached: true,
    },
  );
}

const pythons = new Map<string, Promise<Python | undefined>>();

/**
 * The Python behind `python3` for runners started in `cwd` (a version manager reads the directory),
 * asked once per PATH for every runner this process forks, restarts included: a version manager's
 * shim (pyenv) costs a third of a second of CPU per call, more than the interpreter. Undefined
 * where it cannot be asked: each runner then asks itself, and says why its Python steps cannot run.
 */
export function runnersPython(cwd: string): Promise<Python | undefined> {
  const env = cleanEnv();
  let asked = pythons.get(env.PATH!);
  if (!asked) {
    asked = resolvePython(env, cwd).catch(() => undefined);
    pythons.set(env.PATH!, asked);
  }
  return asked;
}

/**
 * What a runner needs from the service's environment: where programs are, the locale, the
 * temporary directory. No TypeScript compile cache: it would live in the host's temporary
 * directory, where another process could rewrite what the next runner loads.
 */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: process.env.LANG ?? "C.UTF-8",
    TSX_DISABLE_CACHE: "1",
  };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return env;
}
