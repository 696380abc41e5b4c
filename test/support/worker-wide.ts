// What a worker keeps for every test file it runs (test files share workers, vitest.config.ts):
// started by the first file that asks for it, ended with the worker. The shared-worker guard
// (shared-worker.ts) leaves alone the child processes and process listeners its start added.
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";

/** The process events whose listeners a test file must put back as it found them. */
export const WATCHED_EVENTS = ["exit", "uncaughtException", "unhandledRejection", "SIGTERM", "SIGINT"] as const;

interface Kept {
  started: Map<string, Promise<unknown>>;
  pids: Set<number>;
  listeners: Map<string, number>;
  /** Run synchronously as the worker exits: what the exit of the processes themselves leaves (directories). */
  cleanups: Array<() => void>;
  /** Whether the worker's signals and exit run the cleanups yet. */
  handling: boolean;
}

// On globalThis: vitest evaluates setup files again for each file, and their imports with them.
const KEY = Symbol.for("wf.test.worker-wide");
const kept: Kept = ((globalThis as Record<symbol, Kept | undefined>)[KEY] ??= {
  started: new Map(),
  pids: new Set(),
  listeners: new Map(),
  cleanups: [],
  handling: false,
});

/** The worker's child processes (pid → command line), but zombies and those kept for the worker. */
export function childProcesses(): Map<number, string> {
  const found = new Map<number, string>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d) || kept.pids.has(Number(d))) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      // A zombie (exited, not yet reaped) has no command line: it is gone.
      if (cmd) found.set(Number(d), cmd);
    } catch {
      // Ended while being read.
    }
  }
  return found;
}

/** Listeners of `event` installed by files, not by what the worker keeps. */
export function fileListeners(event: (typeof WATCHED_EVENTS)[number]): number {
  return process.listenerCount(event) - (kept.listeners.get(event) ?? 0);
}

/**
 * What `start` makes, made once per worker under `key` and kept until the worker ends: a signal to
 * the worker (vitest ends its workers with SIGTERM) exits it, so that the processes' own exit
 * handlers kill them, and then `cleanup` runs on what `start` made. A `start` that fails must stop
 * what it started; otherwise it must leave nothing of its own but what it keeps: the child
 * processes and process listeners it adds are the worker's from then on.
 */
export function keepForWorker<T>(key: string, start: () => Promise<T>, cleanup: (kept: T) => void): Promise<T> {
  const known = kept.started.get(key) as Promise<T> | undefined;
  if (known) return known;
  const starting = (async () => {
    const children = new Set(childProcesses().keys());
    const listeners = WATCHED_EVENTS.map((e) => process.listenerCount(e));
    if (!kept.handling) {
      kept.handling = true;
      // Node's default for these signals ends the process without its exit handlers.
      process.once("SIGTERM", () => process.exit(128 + constants.signals.SIGTERM));
      process.once("SIGINT", () => process.exit(128 + constants.signals.SIGINT));
      process.once("exit", () => {
        for (const clean of kept.cleanups) clean();
      });
    }
    try {
      const value = await start();
      kept.cleanups.push(() => cleanup(value));
      return value;
    } catch (err) {
      // The next file tries again.
      kept.started.delete(key);
      throw err;
    } finally {
      for (const pid of childProcesses().keys()) if (!children.has(pid)) kept.pids.add(pid);
      WATCHED_EVENTS.forEach((e, i) =>
        kept.listeners.set(e, (kept.listeners.get(e) ?? 0) + process.listenerCount(e) - listeners[i]!),
      );
    }
  })();
  kept.started.set(key, starting);
  return starting;
}
