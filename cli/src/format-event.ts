import { endedStatus, type ExecutionEvent } from "@wf/shared/execution";

const OUTPUT_PREVIEW_CHARS = 120;

/** Where in its step's life a debugger's pause is, as `debug_paused` names it. */
const PAUSE_PHASES: Readonly<Record<string, string>> = {
  before: "before",
  after: "after",
  error: "at the failure of",
  retry: "before the retry of",
  item: "before",
  tool_call: "before a tool call of",
  llm_call: "before an LLM call of",
};

export interface FormatOptions {
  /**
   * When the caller started the execution (epoch ms): the end line then shows the total time
   * since, queueing included. Without it, the executor's own run time is shown.
   */
  origin?: number;
}

/**
 * One event as human-readable lines (several only for a step's log lines, which are indented
 * under the step's own lines).
 */
export function formatEvent(e: ExecutionEvent, opts: FormatOptions = {}): string[] {
  const d = e.data;
  const step = `step ${e.step ?? "?"}`;
  const error = text(d.error);
  switch (e.type) {
    case "exec_started":
      return [`▶ execution ${e.executionId} started${text(d.triggerSource) ? ` (${text(d.triggerSource)})` : ""}`];
    case "exec_parked": {
      const on = Array.isArray(d.waitingOn) ? d.waitingOn.map(String) : [];
      return [`⏸ execution parked${on.length ? `, waiting on ${on.join(", ")}` : ""}`];
    }
    case "exec_resumed": {
      const again = Array.isArray(d.rerunning) ? d.rerunning.map(String) : [];
      return [`▶ execution resumed${again.length ? `, running again: ${again.join(", ")}` : ""}`];
    }
    case "exec_completed":
    case "exec_failed":
    case "exec_cancelled":
    case "exec_interrupted": {
      const ms = opts.origin !== undefined ? e.at - opts.origin : num(d.duration);
      const mark = e.type === "exec_completed" ? "■" : "✗";
      return [
        `${mark} execution ${endedStatus(e.type)}${ms !== undefined ? ` in ${formatDuration(ms)}` : ""}${error ? `: ${error}` : ""}`,
      ];
    }
    case "step_started":
      return [`▶ ${step} started${num(d.attempt) !== undefined ? ` (attempt ${num(d.attempt)})` : ""}`];
    case "step_completed": {
      const ms = num(d.duration);
      return [`✓ ${step} completed${ms !== undefined ? ` in ${formatDuration(ms)}` : ""} → ${preview(d.output)}`];
    }
    case "step_failed":
      return [`✗ ${step} failed${error ? `: ${error}` : ""}`];
    case "step_reused": {
      const edited = d.edited === true ? ", edited in the debugger" : "";
      return [
        `↺ ${step} reused from execution ${text(d.rerunOf) ?? "?"} (${text(d.status) ?? "?"}${edited}) → ${preview(d.output)}`,
      ];
    }
    case "step_skipped":
      return [`↷ ${step} skipped${d.reason === "condition" ? " (condition false)" : ""}`];
    case "step_retrying": {
      const at = num(d.retryAt);
      return [`⟳ ${step} retrying${at !== undefined ? ` at ${isoTime(at)}` : ""}${error ? `: ${error}` : ""}`];
    }
    case "step_waiting": {
      const until = num(d.until);
      return [`⏸ ${step} waiting${until !== undefined ? ` until ${new Date(until).toISOString()}` : ""}`];
    }
    case "step_child":
      return [
        `↳ ${step} started child execution ${text(d.childExecutionId) ?? "?"} of workflow ${text(d.workflowId) ?? "?"}`,
      ];
    case "step_cancelled":
      return [`✗ ${step} cancelled${error ? `: ${error}` : ""}`];
    case "step_log": {
      const lines = Array.isArray(d.lines) ? d.lines.map(String) : [];
      return lines.map((line) => `    ${e.step ?? "?"} │ ${line}`);
    }
    case "step_delta":
      // A streamed answer as it is written: each batch's lines under the step, like its log.
      return (text(d.text) ?? "").split("\n").map((line) => `    ${e.step ?? "?"} ┆ ${line}`);
    case "step_usage": {
      const cost = num(d.costUsd);
      return [
        `Σ ${step} ${text(d.model) ?? "?"}: ${num(d.promptTokens) ?? 0} + ${num(d.completionTokens) ?? 0} tokens${cost ? ` ($${cost})` : ""}`,
      ];
    }
    case "step_tool_call":
      return [
        `⚙ ${step} called ${text(d.server) ?? "?"}.${text(d.tool) ?? "?"}${d.isError === true ? " (error)" : ""} → ${preview(d.result)}`,
      ];
    case "debug_paused": {
      const where = PAUSE_PHASES[text(d.phase) ?? ""] ?? "at";
      const item = text(d.phase) === "item" && num(d.occurrence) !== undefined ? ` item ${num(d.occurrence)} of` : "";
      const by =
        text(d.breakpointId) === "step"
          ? "stepping"
          : `breakpoint ${text(d.breakpointId) ?? "?"} (${text(d.type) ?? "?"})`;
      return [`⏸ paused ${where}${item} ${step}: ${by}, pause ${text(d.id) ?? "?"}`];
    }
    case "debug_resumed":
      return [`▶ ${text(d.command) ?? "?"} by ${text(d.by) ?? "?"} at pause ${text(d.pauseId) ?? "?"}`];
    case "debug_edited": {
      const fields = Array.isArray(d.fields) ? d.fields.map(String) : [];
      return [`✎ ${text(d.by) ?? "?"} set ${fields.join(", ") || "?"} at pause ${text(d.pauseId) ?? "?"}`];
    }
    case "debug_breakpoints":
      return [
        `● breakpoints replaced by ${text(d.by) ?? "?"}: ${Array.isArray(d.breakpoints) ? d.breakpoints.length : 0}`,
      ];
    default:
      return [`· ${e.type}${e.step ? ` ${step}` : ""} ${preview(d)}`];
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(3)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}

export function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Compact JSON of a value, cut to one readable line. */
function preview(value: unknown): string {
  return truncate(JSON.stringify(value) ?? "null", OUTPUT_PREVIEW_CHARS);
}

/** Time of day in UTC, as the ISO form operators pass to `--since`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23) + "Z";
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
