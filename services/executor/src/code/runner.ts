import { rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { sandboxPool } from "../ops/sandbox-metrics";
import { makeCodeRoot } from "./code-root";
import { LocalRunner, runnersPython } from "./local-runner";
import type { RunnerClient } from "./runner-client";
import { RunnerConnection } from "./runner-connection";
import type { SandboxSettings } from "./sandbox-settings";
import { DEFAULT_SANDBOX_SETTINGS } from "./sandbox-settings";
import type { CodeRequest, CodeRunner, InteractiveProcess, Isolation, SandboxLimits } from "./types";
import { CODE_LANGUAGES, DEFAULT_LIMITS, refusedIsolation, UnsupportedLanguageError } from "./types";

export interface CodeRunnerOptions {
  /** Where local runners keep their run directories (in a private directory made here). */
  tmpRoot?: string;
  /** A standalone sandbox runner's Unix socket (see sandbox-main.ts): no local runners then. */
  socket?: string;
  /** Local runner processes: an execution's runs go to one, picked by its id; others to the least busy. */
  pool?: number;
  /** The isolate heap of JavaScript steps; `limits.jsMemoryMb` by another name. */
  jsMemoryLimitMb?: number;
  limits?: Partial<SandboxLimits>;
  /** How local runners set up the sandbox. */
  sandbox?: SandboxSettings;
  /** Bundles of the runner's processes, forked by a service run from its sources (WF_SANDBOX_BUNDLE_DIR). */
  bundleDir?: string;
  /** `first-use`: the runners start with the first run or process, not here (WF_SANDBOX_START). */
  start?: "eager" | "first-use";
  /** Told the runners' isolation once they are ready: here, or at the first use. */
  onStarted?: (isolation: Isolation) => void;
}

const DEFAULT_POOL = 2;
const UNKNOWN_ISOLATION = refusedIsolation("the sandbox runner did not start");

/** Where runs go: local runner processes or a remote runner, each with its connection(s). */
interface Runners {
  /** How many runners there are. */
  readonly size: number;
  /** The connection for the next run; runs of one execution go to one runner. */
  pick(execution?: string): RunnerClient;
  close(): Promise<void>;
}

/**
 * Starts the sandbox runners that run code steps, or connects to a standalone one, and waits
 * for them to be ready (a runner that cannot start fails each run with the reason); with
 * `start: "first-use"`, the first run or process does.
 */
export async function createCodeRunner(opts: CodeRunnerOptions = {}): Promise<CodeRunner> {
  const limits: SandboxLimits = {
    ...DEFAULT_LIMITS,
    ...(opts.jsMemoryLimitMb === undefined ? {} : { jsMemoryMb: opts.jsMemoryLimitMb }),
    ...opts.limits,
  };
  let started: { runners: Runners; isolation: Isolation } | undefined;
  let starting: Promise<Runners> | undefined;
  const start = (): Promise<Runners> =>
    (starting ??= (async () => {
      const runners = opts.socket ? await remoteRunner(opts.socket) : await localRunners(opts);
      const isolation = await runners.pick().ready.catch(() => UNKNOWN_ISOLATION);
      started = { runners, isolation };
      sandboxPool.opened(runners.size);
      opts.onStarted?.(isolation);
      return runners;
    })().catch((err: unknown) => {
      // The next use tries again (a standalone runner that was not up yet).
      starting = undefined;
      throw err;
    }));
  if (opts.start !== "first-use") await start();
  let closed = false;

  return {
    async run(req, signal, onLog) {
      if (closed) throw new Error("the code runner is closed");
      if (!CODE_LANGUAGES.includes(req.language)) throw new UnsupportedLanguageError(req.language);
      const began = performance.now();
      sandboxPool.runStarted();
      try {
        const runners = started?.runners ?? (await start());
        const result = await runners.pick(req.execution).run(req, limits, signal, onLog);
        return { ...result, durationMs: Math.round((performance.now() - began) * 100) / 100 };
      } finally {
        sandboxPool.runEnded();
      }
    },
    open(req, onStdout) {
      if (closed) throw new Error("the code runner is closed");
      const began = performance.now();
      const proc = started
        ? started.runners.pick().open(req, limits, onStdout)
        : openOnStart(start(), req, limits, onStdout);
      return {
        ...proc,
        result: proc.result.then((r) => ({ ...r, durationMs: Math.round((performance.now() - began) * 100) / 100 })),
      };
    },
    isolation: () => started?.isolation,
    async close() {
      if (closed) return;
      closed = true;
      const runners = await starting?.catch(() => undefined);
      if (!runners) return;
      sandboxPool.closed(runners.size);
      await runners.close();
    },
  };
}

/**
 * A process opened while the runners start: what is written before it is open waits for it, and a kill before then
 * ends it as soon as it is open.
 */
function openOnStart(
  runners: Promise<Runners>,
  req: CodeRequest,
  limits: SandboxLimits,
  onStdout: (chunk: string) => void,
): ReturnType<RunnerClient["open"]> {
  const opened = runners.then((r) => r.pick().open(req, limits, onStdout));
  const later = (act: (proc: Omit<InteractiveProcess, "result">) => void) => void opened.then(act, () => undefined);
  return {
    write: (data) => later((proc) => proc.write(data)),
    end: () => later((proc) => proc.end()),
    kill: () => later((proc) => proc.kill()),
    result: opened.then((proc) => proc.result),
  };
}

async function localRunners(opts: CodeRunnerOptions): Promise<Runners> {
  // Absolute: the zygotes' socket paths are used from other working directories. Making it also
  // removes the roots of executors that were killed before they could.
  const root = await makeCodeRoot(resolve(opts.tmpRoot ?? tmpdir()), "wf-code-");
  const settings = opts.sandbox ?? DEFAULT_SANDBOX_SETTINGS;
  const python = await runnersPython(root);
  const pool = Array.from(
    { length: Math.max(1, opts.pool ?? DEFAULT_POOL) },
    () =>
      new LocalRunner({
        entry: "sandbox-process",
        args: [root, JSON.stringify(settings), ...(python ? [JSON.stringify(python)] : [])],
        cwd: root,
        what: "the sandbox runner process",
        handsOffJs: true,
        ...(opts.bundleDir === undefined ? {} : { bundleDir: opts.bundleDir }),
      }),
  );
  await Promise.all(pool.map((runner) => runner.live().ready.catch(() => undefined)));
  return {
    size: pool.length,
    pick: (execution) =>
      (execution === undefined
        ? pool.reduce((least, runner) => (runner.busy < least.busy ? runner : least))
        : pool[hashOf(execution) % pool.length]!
      ).live(),
    async close() {
      await Promise.all(pool.map((runner) => runner.close()));
      await rm(root, { recursive: true, force: true, maxRetries: 2 });
    },
  };
}

/** One connection to a standalone runner, made again by the next run after it was lost. */
async function remoteRunner(socket: string): Promise<Runners> {
  const connect = (): RunnerConnection => {
    const stream = createConnection(socket);
    const conn = new RunnerConnection(stream, () => undefined);
    stream.on("error", (err) => conn.fail(new Error(`the sandbox runner at ${socket} is unreachable: ${err.message}`)));
    stream.on("close", () => conn.fail(new Error(`the sandbox runner at ${socket} closed the connection`)));
    return conn;
  };
  let conn = connect();
  await conn.ready;
  return {
    size: 1,
    pick: () => {
      if (!conn.alive) conn = connect();
      return conn;
    },
    async close() {
      conn.fail(new Error("the code runner was closed"));
    },
  };
}

/** FNV-1a: spreads execution ids evenly over the runners. */
function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
