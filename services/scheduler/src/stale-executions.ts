import type { JetStreamManager } from "@nats-io/jetstream";
import type { Logger } from "@wf/shared/log";
import { queuedCommand, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { startSweeper, type Sweeper } from "./sweeper";

/**
 * Younger executions are left alone: a failed start's withdrawal is still being retried (for a
 * minute), and a status change's list write may still be in flight.
 */
export const STALE_AFTER_MS = 120_000;
/** The unfinished executions checked per pass; each costs a read or two. */
const STALE_BATCH = 1_000;

/**
 * Puts right, every WF_RETENTION_SWEEP_MS, what a crash or an election can leave of unfinished
 * executions (the store's `repairStale`): starts that failed and could not be withdrawn, and
 * list entries a status change left behind. Replicas may sweep at once: every change is bound
 * to the revision it read.
 */
export function startStaleRepair(p: Platform, log: Logger, batch = STALE_BATCH): Sweeper {
  const isQueued = startQueued(p.jsm, p.config.WF_NAMESPACE);
  // Each pass goes on past the last one's executions, and starts again at the oldest once a pass
  // reaches the newest: a thousand long waits for approval do not hide the executions after them.
  let after: string | undefined;
  const pass = async (now: number): Promise<number> => {
    const { repaired, next } = await p.store.executions.repairStale(now - STALE_AFTER_MS, batch, isQueued, after);
    after = next ?? undefined;
    if (repaired > 0) log.info("stale executions put right", { repaired });
    return repaired;
  };
  return startSweeper(pass, p.config.WF_RETENTION_SWEEP_MS, log, "stale execution repair");
}

/** Whether an execution's start command is still stored, waiting for an executor: the `isQueued` of `repairStale`. */
export function startQueued(jsm: JetStreamManager, ns: string): (id: string) => Promise<boolean> {
  const startSubject = subjects(ns).execStart;
  return async (id) => (await queuedCommand(jsm, ns, startSubject(id))) !== null;
}
