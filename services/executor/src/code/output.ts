import type { Outcome } from "./supervise";
import { MAX_STREAM_BYTES } from "./supervise";
import type { RunResult } from "./types";

export const MAX_LOG_LINES = 1000;
/** A log is for reading: longer lines are cut (the output itself is not). */
export const MAX_LOG_LINE_CHARS = 8192;
/** How much of stderr (or stdout) a failed step's error carries. */
const ERROR_TAIL_CHARS = 2048;

export function timeoutMessage(timeoutMs: number): string {
  return `timed out after ${timeoutMs / 1000} s`;
}

/**
 * A finished process as a step result, by the spec's rule for non-JavaScript languages: the
 * output is the last non-empty stdout line parsed as JSON when it is JSON, else the whole trimmed
 * stdout as a string; a non-zero exit fails with the tail of stderr (of stdout when stderr is
 * empty). Logs are stderr's lines then stdout's, less the line that was taken as JSON output.
 */
export function processResult(outcome: Outcome, timeoutMs: number): RunResult {
  const { end, stdout, stderr } = outcome;
  // Only as many lines as can be kept are split off: stdout may be megabytes of short lines.
  const logsWith = (out: string): string[] =>
    capLogs([...firstLines(stderr, MAX_LOG_LINES + 1), ...firstLines(out, MAX_LOG_LINES + 1)]);
  const fail = (error: string, timedOut = false): RunResult => ({ ok: false, error, logs: logsWith(stdout), timedOut });
  switch (end.kind) {
    case "timeout":
      return fail(timeoutMessage(timeoutMs), true);
    case "aborted":
      return fail("aborted");
    case "overflow":
      return fail(`${end.stream} exceeded ${MAX_STREAM_BYTES / (1024 * 1024)} MB`);
    case "failed":
      return fail(end.message);
  }
  const { code, signal } = end.status;
  if (code !== 0) {
    const how = code === null ? `killed by ${signal ?? "a signal"}` : `exited with code ${code}`;
    const tail = (stderr.trim() || stdout.trim()).slice(-ERROR_TAIL_CHARS);
    return fail(tail ? `${how}: ${tail}` : how);
  }
  const last = lastNonEmptyLine(stdout);
  const json = last && parseJson(last.text);
  if (!last || !json) return { ok: true, output: stdout.trim(), logs: logsWith(stdout) };
  return { ok: true, output: json.value, logs: logsWith(stdout.slice(0, last.start) + stdout.slice(last.end)) };
}

export function capLogs(logs: string[]): string[] {
  const kept = logs.length <= MAX_LOG_LINES ? logs : [...logs.slice(0, MAX_LOG_LINES - 1), "[further lines not kept]"];
  return kept.map((line) =>
    line.length > MAX_LOG_LINE_CHARS ? `${line.slice(0, MAX_LOG_LINE_CHARS)}[${line.length - MAX_LOG_LINE_CHARS} more characters]` : line,
  );
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
