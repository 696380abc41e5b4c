import { Counter, Histogram } from "@wf/shared/metrics";

const lateness = new Histogram({
  name: "wf_timer_lateness_seconds",
  help: "How late durable timers fired: from their due time to the acknowledged publish of their command, by kind (exec, approval, debug, tick, chain).",
  labelNames: ["kind"],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [],
});

const stranded = new Counter({
  name: "wf_stranded_commands_total",
  help: "Commands the stranded-execution sweep sent for executions whose own was lost, by what it stands for: takeover (a dead holder's command gone), timer, child, debug_idle, approval_expiry, approval (a decision's resume).",
  labelNames: ["command"],
  registers: [],
});

/** The scheduler's own metrics (docs/metrics.md). */
export const schedulerMetrics = [lateness, stranded];

/** What a command the stranded-execution sweep sends stands for. */
export type StrandedCommand = "takeover" | "timer" | "child" | "debug_idle" | "approval_expiry" | "approval";

export const countStranded = (command: StrandedCommand): void => stranded.inc({ command });

/**
 * The kinds of timers the services arm (`<ns>.timer.<lane>.<kind>.<id>`, before the lanes `<ns>.timer.<kind>.<id>`);
 * anything else is `other`.
 */
const KINDS: ReadonlySet<string> = new Set(["exec", "approval", "debug", "tick", "chain"]);

/**
 * A timer on `subject`, due at `dueAt`, fired now. A timer never fires early, so this is never negative but for clock
 * steps.
 */
export function timerFired(subject: string, dueAt: number): void {
  const kind = subject.split(".").at(-2) ?? "";
  lateness.observe({ kind: KINDS.has(kind) ? kind : "other" }, Math.max(0, Date.now() - dueAt) / 1000);
}
