import { z } from "zod";

// Only what the indexes need, read leniently: a stored definition has passed the full workflow
// schema already, and the scheduler checks each trigger again before acting on it.
const TriggerFacts = z.object({
  triggers: z.array(z.object({ type: z.string(), after: z.string().optional() })).optional(),
});

/** What a workflow definition's `triggers` say for the store's trigger queries. */
export function triggerFacts(definition: unknown): { scheduled: boolean; chainedAfter: string[] } {
  const triggers = TriggerFacts.safeParse(definition).data?.triggers ?? [];
  const chainedAfter = triggers.flatMap((t) =>
    t.type === "DELAYED_COMPLETION" && t.after !== undefined ? [t.after] : [],
  );
  return { scheduled: triggers.some((t) => t.type === "schedule"), chainedAfter: [...new Set(chainedAfter)] };
}
