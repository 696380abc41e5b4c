import type { Logger } from "@wf/shared/log";
import type { CommandConsumer } from "@wf/shared/nats";

/** How often a scheduler that consumes no execution ends yet looks whether a workflow has a chained trigger now. */
export const CHAIN_LOOK_MS = 1_000;

export interface ChainEndsOptions {
  /** Whether the end consumers exist already (made by an earlier start, or by another replica). */
  exist(): Promise<boolean>;
  /** When the oldest chained trigger stored now was stored, or null while there is none (the store's chainedSince). */
  chainedSince(): Promise<number | null>;
  /** Makes the end consumers (those missing start at `startAt`, epoch ms) and consumes them. */
  consume(startAt?: number): Promise<CommandConsumer[]>;
  log: Logger;
}

/**
 * The consumers of execution ends that chained triggers follow, made only once a workflow has a
 * chained trigger, so an installation that chains nothing pays nothing at each execution's end.
 * Until then the scheduler looks every CHAIN_LOOK_MS, and makes them from the stored time of the
 * oldest chained trigger; consumers that exist already are consumed from where they stand
 * (docs/scheduling.md#chained-triggers).
 */
export function startChainEnds(opts: ChainEndsOptions): { stop(): Promise<void> } {
  let stopped = false;
  let consumers: CommandConsumer[] = [];
  let wake = (): void => undefined;
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CHAIN_LOOK_MS);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const run = (async () => {
    let existed: boolean | null = null;
    while (!stopped) {
      try {
        existed ??= await opts.exist();
        const since = existed ? undefined : await opts.chainedSince();
        if (since !== null) {
          consumers = await opts.consume(since);
          return;
        }
      } catch (err) {
        opts.log.warn("could not tell whether a workflow has a chained trigger; looking again", { err });
      }
      await pause();
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await run;
      await Promise.all(consumers.map((c) => c.stop()));
    },
  };
}
