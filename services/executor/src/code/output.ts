import type { Outcome } from "./supervise";
import type { LogListener, RunResult } from "./types";

export const MAX_LOG_LINES = 1000;
/** A log is for reading: longer lines are cut (the output itself is not). */
export const MAX_LOG_LINE_CHARS = 8192;
/** How much of stderr (or stdout) a failed step's error carries. */
const ERROR_TAIL_CHARS = 2048;
const NOT_KEPT = "[further lines not kept]";
/** What the resource-limit signals mean, for the error of a step killed by one. */
const SIGNAL_CAUSES: Record<string, string> = {
  SIGXCPU: "its CPU time limit",
  SIGXFSZ: "its file size limit",
};

export function timeoutMessage(timeoutMs: number): string {
  return `timed out after ${timeoutMs / 1000} s`;
}

function truncationNote(stream: "stdout" | "stderr", bytes: number): string {
  return `[${stream} truncated at ${bytes} bytes]`;
}

/**
 * A step's log as it is written: at most MAX_LOG_LINES lines, each cut to MAX_LOG_LINE_CHARS,
 * passed on to `listener` as they come.
 */
export class LogLines {
  private readonly lines: string[] = [];
  private count = 0;

  constructor(private readonly listener?: LogListener) {}

  /** `length`: the line's length before it was cut (a JavaScript step cuts its lines before they leave its isolate). */
  push(line: string, length = line.length): void {
    this.count += 1;
    if (this.count > MAX_LOG_LINES + 1) return;
    const kept = this.count > MAX_LOG_LINES ? NOT_KEPT : capLine(line, length);
    if (this.count <= MAX_LOG_LINES) this.lines.push(kept);
    this.listener?.(kept);
  }

  kept(): string[] {
    return this.count > MAX_LOG_LINES ? [...this.lines.slice(0, MAX_LOG_LINES - 1), NOT_KEPT] : this.lines;
  }
}

/**
 * A finished process as a step result, by the spec's rule for non-JavaScript languages: the
 * output is the last non-empty stdout line parsed as JSON when it is JSON, else the whole trimmed
 * stdout as a string; a non-zero exit fails with the tail of stderr (of stdout when stderr is
 * empty). Logs are stderr's lines then stdout's, less the line that was taken as JSON output,
 * then a note for each stream cut at the output limit.
 */
export function processResult(outcome: Outcome, timeoutMs: number): RunResult {
  const { end, stdout, stderr, truncatedAt } = outcome;
  const notes = (["stdout", "stderr"] as const).flatMap((s) =>
    truncatedAt[s] === undefined ? [] : [truncationNote(s, truncatedAt[s])],
  );
  // Only as many lines as can be kept are split off: stdout may be megabytes of short lines.
  const logsWith = (out: string): string[] =>
    capLogs([...firstLines(stderr, MAX_LOG_LINES + 1), ...firstLines(out, MAX_LOG_LINES + 1)], notes);
  const fail = (error: string, timedOut = false): RunResult => ({
    ok: false,
    error,
    logs: logsWith(stdout),
    artifacts: [],
    timedOut,
  });
  switch (end.kind) {
    case "timeout":
      return fail(timeoutMessage(timeoutMs), true);
    case "aborted":
      return fail("aborted");
    case "limit":
    case "failed":
      return fail(end.message);
  }
  const { code, signal } = end.status;
  if (code !== 0) {
    const cause = signal && SIGNAL_CAUSES[signal] ? ` (${SIGNAL_CAUSES[signal]})` : "";
    const how = code === null ? `killed by ${signal ?? "a signal"}${cause}` : `exited with code ${code}`;
    const tail = (stderr.trim() || stdout.trim()).slice(-ERROR_TAIL_CHARS);
    return fail(tail ? `${how}: ${tail}` : how);
  }
  const last = lastNonEmptyLine(stdout);
  const json = last && parseJson(last.text);
  if (!last || !json) return { ok: true, output: stdout.trim(), logs: logsWith(stdout), artifacts: [] };
  return {
    ok: true,
    output: json.value,
    logs: logsWith(stdout.slice(0, last.start) + stdout.slice(last.end)),
    artifacts: [],
  };
}

/** At most MAX_LOG_LINES lines, each cut; `notes` are kept whatever the count. */
function capLogs(logs: string[], notes: string[] = []): string[] {
  const room = MAX_LOG_LINES - notes.length;
  const kept = logs.length <= room ? logs : [...logs.slice(0, room - 1), NOT_KEPT];
  return [...kept.map((line) => capLine(line)), ...notes];
}

function capLine(line: string, length = line.length): string {
  return length > MAX_LOG_LINE_CHARS
    ? `${line.slice(0, MAX_LOG_LINE_CHARS)}[${length - MAX_LOG_LINE_CHARS} more characters]`
    : line;
}

function firstLines(text: string, max: number): string[] {
  const lines: string[] = [];
  let pos = 0;
  while (pos < text.length && lines.length < max) {
    const newline = text.indexOf("\n", pos);
    const end = newline < 0 ? text.length : newline;
    lines.push(text.slice(pos, end).replace(/\r$/, ""));
    pos = end + 1;
  }
  return lines;
}

/** The last line with more than whitespace, and where it starts and ends (its newline included). */
function lastNonEmptyLine(text: string): { text: string; start: number; end: number } | undefined {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end);
    if (line.trim() !== "") return { text: line, start, end: text[end] === "\n" ? end + 1 : end };
    end = start - 1;
  }
  return undefined;
}

function parseJson(line: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(line) as unknown };
  } catch {
    return undefined;
  }
}
