import { ArtifactFiles } from "@wf/shared/artifacts";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { streamNames, subjects, toToken } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { startSweeper, type Sweeper } from "./sweeper";

/** Executions read and removed per batch; a pass goes on until a batch comes back short. */
const BATCH = 500;
/** Removals in flight at once: each is a handful of store writes. */
const AT_ONCE = 32;

/**
 * Removes finished executions older than WF_EXECUTION_RETENTION, every WF_RETENTION_SWEEP_MS:
 * each with its approvals, artifact files and records, and events, the execution itself last,
 * so that a pass cut short by a crash leaves the execution listed and the next pass finishes it.
 * Replicas may sweep at once: every removal is idempotent. A pass at `now` removes every finished
 * execution created before `now - WF_EXECUTION_RETENTION`; with retention `off`, none.
 */
export function startRetention(p: Platform, log: Logger): Sweeper {
  const maxAgeMs = p.config.WF_EXECUTION_RETENTION;
  if (maxAgeMs === null) return { sweep: () => Promise.resolve(0), stop: () => Promise.resolve() };
  const eventsMaxAgeMs = p.config.WF_EVENTS_MAX_AGE_H * 3_600_000;
  const subj = subjects(p.config.WF_NAMESPACE);
  const evt = streamNames(p.config.WF_NAMESPACE).evt;
  let files: Promise<ArtifactFiles> | null = null;

  const remove = async (e: ExecutionSnapshot): Promise<void> => {
    files ??= ArtifactFiles.open(p.nc, p.config.WF_NAMESPACE, p.placement, p.store);
    await (await files).removeAll(e.id);
    for (const approval of await p.store.approvals.listByExecution(e.id)) await p.store.approvals.delete(approval.id);
    // The EVT stream drops events by age on its own; only a retention shorter than that purges them.
    if (maxAgeMs < eventsMaxAgeMs) {
      await p.jsm.streams.purge(evt, {
        filter: subj.eventFilter({
          ownerId: toToken(e.ownerId),
          workflowId: toToken(e.workflowId),
          executionId: e.id,
          type: "*",
        }),
      });
    }
    await p.store.executions.delete(e.id);
  };

  const pass = async (now: number): Promise<number> => {
    let removed = 0;
    for (;;) {
      const due = await p.store.executions.listFinishedBefore(now - maxAgeMs, BATCH);
      for (let i = 0; i < due.length; i += AT_ONCE) await Promise.all(due.slice(i, i + AT_ONCE).map(remove));
      removed += due.length;
      if (due.length < BATCH) break;
      log.info("retention: removing executions", { removed, olderThan: new Date(now - maxAgeMs).toISOString() });
    }
    if (removed > 0)
      log.info("retention: removed executions", { removed, olderThan: new Date(now - maxAgeMs).toISOString() });
    return removed;
  };
  return startSweeper(pass, p.config.WF_RETENTION_SWEEP_MS, log, "retention");
}
