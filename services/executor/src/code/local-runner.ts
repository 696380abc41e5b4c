import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RunnerConnection } from "./runner-connection";
import type { SandboxSettings } from "./sandbox-settings";

/** Run from `npm run build`'s bundles (dist/*.js) rather than from the TypeScript sources. */
const BUILT = import.meta.url.endsWith(".js");
const RUNNER_SCRIPT = fileURLToPath(new URL(BUILT ? "./sandbox-process.js" : "./sandbox-process.ts", import.meta.url));
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
  stderrTail: string;
  /** Why the client killed it, if it did. */
  killedBecause?: string;
}

/**
 * One sandbox runner process forked by the service, forked anew by the next run after it died;
 * runs in flight when it dies fail with the reason.
 */
export class LocalRunner {
  private current: Incarnation | undefined;

  constructor(private readonly opts: { tmpRoot: string; settings: SandboxSettings }) {}

  get busy(): number {
    return this.current?.conn.alive ? this.current.conn.busy : 0;
  }

  /** The live runner's connection, forked anew when there is none or it died. */
  live(): RunnerConnection {
    if (this.current?.conn.alive) return this.current.conn;
    const proc = spawn(
      process.execPath,
      [
        // Our own flags only, never the service's (inspector, other loaders); isolated-vm needs no snapshot on Node 20+.
        ...LOADER_FLAGS,
        "--no-node-snapshot",
        "--disable-warning=ExperimentalWarning",
        RUNNER_SCRIPT,
        this.opts.tmpRoot,
        JSON.stringify(this.opts.settings),
      ],
      {
        cwd: this.opts.tmpRoot,
        // Nothing of the service's environment: no credentials for an escaped sandbox to find.
        env: cleanEnv(),
        stdio: ["ignore", "ignore", "pipe", "pipe"],
        // A session of its own: nothing it starts shares the service's controlling terminal.
        detached: true,
      },
    );
    const incarnation: Incarnation = {
      proc,
      conn: new RunnerConnection(proc.stdio[3] as Duplex, (why) => this.kill(incarnation, why)),
      stderrTail: "",
    };
    proc.stderr?.setEncoding("utf8").on("data", (text: string) => {
      incarnation.stderrTail = (incarnation.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    const fail = (how: string): void => {
      const tail = incarnation.stderrTail.trim();
      incarnation.conn.fail(new Error(`the sandbox runner process ${incarnation.killedBecause ?? how}${tail ? `: ${tail}` : ""}`));
    };
    // "close" rather than "exit": it comes after stderr is drained, so the error carries all of it.
    proc.on("close", (code, signal) => fail(`exited unexpectedly (${signal ?? `code ${code}`})`));
    proc.on("error", (err) => {
      fail(`failed: ${err.message}`);
      proc.kill("SIGKILL");
    });
    this.current = incarnation;
    return incarnation.conn;
  }

  /**
   * Closing the connection has the runner kill its steps, remove their directories and cgroups
   * and exit; one that has not within CLOSE_GRACE_MS is killed.
   */
  async close(): Promise<void> {
    const incarnation = this.current;
    if (!incarnation) return;
    incarnation.killedBecause ??= "was stopped: the code runner was closed";
    incarnation.conn.fail(new Error(`the sandbox runner process ${incarnation.killedBecause}`));
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

/**
 * What a runner needs from the service's environment: where programs are, the locale, the
 * temporary directory. No TypeScript compile cache: it would live in the host's temporary
 * directory, where another process could rewrite what the next runner loads.
 */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", LANG: process.env.LANG ?? "C.UTF-8", TSX_DISABLE_CACHE: "1" };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return env;
}
