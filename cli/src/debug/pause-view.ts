import type { PauseRecord, WaitingPoints } from "@wf/shared/execution";
import { truncate } from "../format-event";

const SHOWN_CHARS = 2_000;

/** A pause as the terminal shows it: where, why, what its context holds, and what comes after it. */
export function formatPause(pause: PauseRecord, behind: WaitingPoints): string[] {
  const c = pause.context;
  const lines = [
    `⏸ paused at ${pause.stepPath} (${pause.type} ${pause.breakpointId}, ${pause.phase})  pause ${pause.id}`,
  ];
  const show = (label: string, value: unknown): void => {
    if (value !== undefined)
      lines.push(
        `  ${label}: ${truncate(JSON.stringify(value, null, 2) ?? "undefined", SHOWN_CHARS).replace(/\n/g, "\n    ")}`,
      );
  };
  if (c.error !== undefined) lines.push(`  error: ${c.error}`);
  if (c.attempt !== undefined) lines.push(`  attempt: ${c.attempt}`);
  if (c.index !== undefined) lines.push(`  index: ${c.index}`);
  show("item", c.item);
  show("input", c.input);
  show("output", c.output);
  if (c.toolCall) show(`tool call ${c.toolCall.server}/${c.toolCall.tool}`, c.toolCall.arguments);
  if (c.watch)
    lines.push(`  watch ${c.watch.expression}: ${JSON.stringify(c.watch.before)} → ${JSON.stringify(c.watch.after)}`);
  if (c.usage) lines.push(`  usage so far: ${c.usage.totalTokens} tokens, $${c.usage.costUsd.toFixed(4)}`);
  show("vars", c.vars);
  lines.push(...formatBehind(behind), "  (help lists the commands)");
  return lines;
}

/** In the order the branches came to them; no lines when nothing waits. */
export function formatBehind({ waiting, held }: WaitingPoints): string[] {
  return [...section("waiting their turn", waiting), ...section("held failures", held)];
}

function section(title: string, points: WaitingPoints["waiting"]): string[] {
  if (points.length === 0) return [];
  return [`  ${title} (${points.length}):`, ...points.map((p) => `    ${p.stepPath} ${p.phase}: ${p.reason}`)];
}
