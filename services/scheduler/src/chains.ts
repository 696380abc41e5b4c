import { startRefusal, starterOf } from "@wf/shared/auth";
import { AlreadyExistsError, CasConflictError } from "@wf/shared/errors";
import { ownerLane, type ExecutionEvent } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { subjects, toToken } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import type { Store, WorkflowRecord } from "@wf/shared/store";
import { END_EVENTS, type ChainEndCommand, type ChainFireCommand } from "./commands";
import { chainExecutionId } from "./execution-ids";
import { KeyTurns } from "./key-turns";
import type { StartBudget } from "./start-budget";
import { startTriggered } from "./start-triggered";
import { chainTriggers } from "./stored-triggers";
import { chainTimer } from "./trigger-timers";

/**
 * How many source executions a run counter remembers: enough to recognise an end event that is
 * delivered again (a crash before its acknowledgement), which happens within seconds.
 */
const REMEMBERED_SOURCES = 64;

/**
 * Chained triggers (DELAYED_COMPLETION). When an execution ends, each workflow whose chained
 * trigger names the ended workflow and its end state has the run counted against `max_runs`
 * (compare-and-set on the trigger's counter) and a durable timer armed for `delay` seconds after
 * the end; the timer's command starts that workflow with triggerSource `chained`. A loop
 * (A → B → A) stops when a counter reaches its cap.
 */
export class Chains {
  /**
   * A trigger's counter is written by every end of its `after`: of the ends this process counts at once (up to 256),
   * each retried its compare-and-set until the others had written, and 2,000 ends of one `after` took a minute.
   */
  readonly #counting = new KeyTurns();

  constructor(
    private readonly platform: Platform,
    private readonly budget: StartBudget,
    private readonly log: Logger,
  ) {}

  /**
   * An end on the events' stream, handed on to the trigger lane of its owner when a workflow is chained after it. The
   * ends' consumers take every owner's ends in the order they came, and counting and arming a chained run is a few
   * store writes: one owner's 2,000 ends held another owner's behind 1,750 of them. Handing on is a read from memory
   * and a publish; the lanes then count and arm in turn.
   */
  async seen(event: ExecutionEvent): Promise<void> {
    if (!(await this.platform.store.workflows.hasChainedAfter(event.workflowId))) return;
    const ns = this.platform.config.WF_NAMESPACE;
    const subject = subjects(ns).trigger(ownerLane(event.ownerId), "end", toToken(event.executionId));
    await this.platform.js.publish(subject, JSON.stringify(event), { msgID: `end:${event.id}` });
  }

  /** An end handed on to its owner's lane: counts and arms the run of each trigger chained after it. */
  async ended(event: ChainEndCommand): Promise<void> {
    const state = END_EVENTS[event.type];
    const targets = await this.platform.store.workflows.listChainedAfter(event.workflowId);
    if (targets.length === 0) return;
    // A step test (one step tried while editing) is no run of the workflow: nothing follows it.
    const ended = await this.platform.store.executions.get(event.executionId);
    if (ended?.value.triggerSource === "step_test") return;
    const source = await this.platform.store.workflows.get(event.workflowId);
    for (const w of targets) {
      // A chain follows only a workflow its owner can see: one tenant's runs must not drive another's.
      if (!source || !visibleTo(source.value, w.ownerId)) continue;
      for (const { key, trigger } of chainTriggers(w.id, w.definition)) {
        if (trigger.after !== event.workflowId || !trigger.on.includes(state)) continue;
        const counted = () => countRun(this.platform.store, key, w.id, event.executionId, trigger.max_runs);
        if (!(await this.#counting.run(key, counted))) continue;
        const dueAt = event.at + trigger.delay * 1_000;
        const cmd: ChainFireCommand = {
          kind: "chain",
          workflowId: w.id,
          chainKey: key,
          sourceExecutionId: event.executionId,
          dueAt,
        };
        await this.platform.timers.schedule(chainTimer(this.platform.config.WF_NAMESPACE, w.ownerId, cmd));
      }
    }
  }

  async fire(cmd: ChainFireCommand): Promise<void> {
    const w = await this.platform.store.workflows.get(cmd.workflowId);
    // The trigger was removed, or the workflow deleted, during the delay: the run is not started.
    if (!w || !chainTriggers(w.value.id, w.value.definition).some((c) => c.key === cmd.chainKey)) return;
    // The run is the owner's: it starts only if the owner may start the workflow now, as the API would let them.
    const owner = await this.platform.store.users.get(w.value.ownerId);
    const refusal = startRefusal(starterOf(w.value.ownerId, owner?.value ?? null), w.value.id, w.value);
    if (refusal || !owner) {
      this.log.warn("chained run skipped: the workflow's owner may not start it", {
        workflowId: w.value.id,
        chainKey: cmd.chainKey,
        sourceExecutionId: cmd.sourceExecutionId,
        reason: refusal?.message ?? `user ${w.value.ownerId} not found`,
      });
      return;
    }
    const executionId = chainExecutionId(cmd.chainKey, cmd.sourceExecutionId, cmd.dueAt, w.value.ownerId);
    const source = { workflowId: w.value.id, trigger: "chained", chainKey: cmd.chainKey };
    if (await this.budget.allows(owner.value, executionId, source)) {
      await startTriggered(this.platform, w.value, executionId, "chained");
    }
  }
}

function visibleTo(w: WorkflowRecord, userId: string): boolean {
  return w.ownerId === userId || w.sharedWith[userId] !== undefined;
}

/**
 * Counts one run of the chained trigger `key`, caused by the end of `sourceExecutionId`; false
 * when `maxRuns` runs were counted already. A source counted before counts as counted again.
 */
export async function countRun(
  store: Store,
  key: string,
  workflowId: string,
  sourceExecutionId: string,
  maxRuns: number | undefined,
): Promise<boolean> {
  for (;;) {
    const current = await store.chainRuns.get(key);
    const recent = current?.value.recent ?? [];
    if (recent.includes(sourceExecutionId)) return true;
    const runs = current?.value.runs ?? 0;
    if (maxRuns !== undefined && runs >= maxRuns) return false;
    const value = {
      id: key,
      workflowId,
      runs: runs + 1,
      recent: [...recent, sourceExecutionId].slice(-REMEMBERED_SOURCES),
      updatedAt: Date.now(),
    };
    try {
      if (current) await store.chainRuns.update(value, current.version);
      else await store.chainRuns.create(value);
      return true;
    } catch (err) {
      // Another end of the same source workflow counted first: read again and decide again.
      if (!(err instanceof CasConflictError || err instanceof AlreadyExistsError)) throw err;
    }
  }
}
