import { AlreadyExistsError, CasConflictError } from "@wf/shared/errors";
import type { Logger } from "@wf/shared/log";
import type { Platform } from "@wf/shared/runtime";
import type { WorkflowRecord } from "@wf/shared/store";
import type { TickCommand } from "./commands";
import { scheduleExecutionId } from "./execution-ids";
import { schedulingOwner } from "./owner-plan";
import type { StartBudget } from "./start-budget";
import { startTriggered } from "./start-triggered";
import { nextTick, scheduleFingerprint, scheduleTriggers } from "./stored-triggers";
import { tickTimer } from "./trigger-timers";

/**
 * When a tick is handled late (no scheduler ran when it fell due, or its delivery was lost with
 * a killed replica and came back after the AckWait), the ticks that fell due meanwhile fire
 * too, at once, as far back as this; older ones are skipped rather than replayed in a burst.
 */
const CATCH_UP_MS = 60_000;
/**
 * An armed tick this far past due that armed no successor is taken as lost (its chain stopped:
 * the owner was not on Pro then, or a crash fell between arming and recording): the scan arms
 * the schedule again.
 */
const LOST_AFTER_MS = 30_000;

/**
 * Cron schedules. Each scheduled workflow has one armed tick: a durable timer whose command
 * starts the workflow's execution for that tick and arms the next. A scan (at start-up and every
 * WF_SCHEDULE_SCAN_MS) arms workflows that have none yet, or whose schedule changed. Every step
 * may run twice or on two replicas at once: the timer, the tick command and the execution all
 * have ids derived from the workflow and the tick, so the doubles collide and one survives.
 */
export class Schedules {
  constructor(
    private readonly platform: Platform,
    private readonly budget: StartBudget,
    private readonly log: Logger,
  ) {}

  async scan(now = Date.now()): Promise<void> {
    for (const w of await this.platform.store.workflows.listScheduled()) {
      await this.armIfNeeded(w, now).catch((err: unknown) => {
        this.log.warn("schedule not armed; the next scan retries", { workflowId: w.id, err });
      });
    }
  }

  async tick(cmd: TickCommand, now = Date.now()): Promise<void> {
    const w = await this.platform.store.workflows.get(cmd.workflowId);
    const triggers = w ? scheduleTriggers(w.value.definition) : [];
    if (!w || triggers.length === 0) {
      await this.platform.store.schedules.delete(cmd.workflowId);
      return;
    }
    // An edit replaced the schedule that armed this tick; the scan arms the new one.
    if (scheduleFingerprint(triggers) !== cmd.fingerprint) return;
    const owner = await schedulingOwner(this.platform.store, w.value.ownerId);
    if (!owner) return;
    const executionId = scheduleExecutionId(w.value, cmd.tickAt);
    // A tick past the owner's budget starts nothing, and the schedule goes on from the owner's next minute: its ticks
    // until then would be refused too, each a few store operations and a write to the shared counters (a hundred
    // per-second schedules of one owner ticked a hundred times a second to start nothing).
    const allowed = await this.budget.allows(owner, executionId, { workflowId: w.value.id, trigger: "schedule" }, now);
    if (allowed) await startTriggered(this.platform, w.value, executionId, "schedule");
    const from = allowed ? Math.max(cmd.tickAt, now - CATCH_UP_MS) : nextMinute(now) - 1;
    const next = nextTick(triggers, from);
    if (next !== null) await this.arm(w.value, cmd.fingerprint, next);
  }

  private async armIfNeeded(w: WorkflowRecord, now: number): Promise<void> {
    const triggers = scheduleTriggers(w.definition);
    if (triggers.length === 0) return;
    const fingerprint = scheduleFingerprint(triggers);
    const armed = await this.platform.store.schedules.get(w.id);
    if (armed?.value.fingerprint === fingerprint && armed.value.nextAt >= now - LOST_AFTER_MS) return;
    if (!(await schedulingOwner(this.platform.store, w.ownerId))) return;
    const next = nextTick(triggers, now);
    if (next !== null) await this.arm(w, fingerprint, next);
  }

  /** Arms the timer first, then records it: a crash between the two leaves a timer, never a record of none. */
  private async arm(w: WorkflowRecord, fingerprint: string, tickAt: number): Promise<void> {
    const workflowId = w.id;
    const cmd: TickCommand = { kind: "tick", workflowId, tickAt, fingerprint };
    await this.platform.timers.schedule(tickTimer(this.platform.config.WF_NAMESPACE, w.ownerId, cmd));
    await this.record(workflowId, fingerprint, tickAt);
  }

  /** Records the armed tick, unless a later one of the same schedule is recorded already. */
  private async record(workflowId: string, fingerprint: string, nextAt: number): Promise<void> {
    const { schedules } = this.platform.store;
    for (;;) {
      const current = await schedules.get(workflowId);
      if (current?.value.fingerprint === fingerprint && current.value.nextAt >= nextAt) return;
      const value = { id: workflowId, fingerprint, nextAt, updatedAt: Date.now() };
      try {
        if (current) await schedules.update(value, current.version);
        else await schedules.create(value);
        return;
      } catch (err) {
        // Another replica recorded first: read again and decide again.
        if (!(err instanceof CasConflictError || err instanceof AlreadyExistsError)) throw err;
      }
    }
  }
}

/** The start of the epoch minute after the one `now` is in: where an owner's budget of triggered starts renews. */
function nextMinute(now: number): number {
  return (Math.floor(now / 60_000) + 1) * 60_000;
}
