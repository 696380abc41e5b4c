import type { Logger } from "@wf/shared/log";

export interface Sweeper {
  /** One pass now, or the one already running. */
  sweep(now?: number): Promise<number>;
  /** Stops the timer and waits for a pass in flight. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `everyMs`, one pass at a time: a pass that fails is logged, and the next
 * one retries whatever it left.
 */
export function startSweeper(
  pass: (now: number) => Promise<number>,
  everyMs: number,
  log: Logger,
  what: string,
): Sweeper {
  let running: Promise<number> | null = null;
  const sweep = (now = Date.now()): Promise<number> => {
    running ??= pass(now).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => log.warn(`${what} pass failed; the next one retries`, { err }));
  }, everyMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
