import { nextCronTime, TriggerSchema, type DelayedCompletionTrigger, type ScheduleTrigger } from "@wf/shared/workflow";
import { z } from "zod";

const Triggers = z.object({ triggers: z.array(TriggerSchema).default([]) });

/** The triggers of a stored definition; none when they no longer pass the schema. */
function triggersOf(definition: unknown) {
  return Triggers.safeParse(definition).data?.triggers ?? [];
}

export function scheduleTriggers(definition: unknown): ScheduleTrigger[] {
  return triggersOf(definition).filter((t) => t.type === "schedule");
}

/**
 * A chained trigger with the key of its run counter: `<workflow>:<after>:<n>`, the n-th trigger of
 * the workflow naming that `after`. Editing `on`, `delay` or `max_runs` keeps the key (and the
 * count); a trigger that names another workflow counts afresh.
 */
export interface ChainTrigger {
  key: string;
  trigger: DelayedCompletionTrigger;
}

export function chainTriggers(workflowId: string, definition: unknown): ChainTrigger[] {
  const seen = new Map<string, number>();
  return triggersOf(definition).flatMap((trigger) => {
    if (trigger.type !== "DELAYED_COMPLETION") return [];
    const n = seen.get(trigger.after) ?? 0;
    seen.set(trigger.after, n + 1);
    return [{ key: `${workflowId}:${trigger.after}:${n}`, trigger }];
  });
}

/** Identifies a workflow's schedule: equal fingerprints fire at the same times. */
export function scheduleFingerprint(triggers: readonly ScheduleTrigger[]): string {
  return JSON.stringify(triggers.map((t) => [t.cron.trim().split(/\s+/).join(" "), t.timezone ?? "UTC"]));
}

/** The first tick of any of the schedules strictly after `after`, or null when none fires again. */
export function nextTick(triggers: readonly ScheduleTrigger[], after: number): number | null {
  const times = triggers.flatMap((t) => nextCronTime(t.cron, t.timezone, after) ?? []);
  return times.length === 0 ? null : Math.min(...times);
}
