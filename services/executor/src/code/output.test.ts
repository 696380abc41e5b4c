import { describe, expect, it } from "vitest";
import { LogLines, MAX_LOG_LINES, processResult } from "./output";
import type { Outcome } from "./supervise";

function exited(stdout: string, stderr = "", code = 0): Outcome {
  return { end: { kind: "exited", status: { code, signal: null } }, stdout, stderr, truncatedAt: {} };
}

describe("processResult", () => {
  it("parses the last non-empty stdout line as JSON and leaves it out of the logs", () => {
    expect(processResult(exited('one\r\n{"a": 1}\r\n\n  \n', "err\n"), 1000)).toEqual({
      ok: true,
      output: { a: 1 },
      logs: ["err", "one", "", "  "],
      artifacts: [],
    });
    expect(processResult(exited("7"), 1000)).toEqual({ ok: true, output: 7, logs: [], artifacts: [] });
  });

  it("takes the whole trimmed stdout as text when the last line is not JSON", () => {
    expect(processResult(exited("\n {x}\nplain \n"), 1000)).toEqual({
      ok: true,
      output: "{x}\nplain",
      logs: ["", " {x}", "plain "],
      artifacts: [],
    });
    expect(processResult(exited(""), 1000)).toEqual({ ok: true, output: "", logs: [], artifacts: [] });
  });

  it("reports how the process ended", () => {
    const signalled = (signal: string): Outcome => ({
      end: { kind: "exited", status: { code: null, signal } },
      stdout: "",
      stderr: "",
      truncatedAt: {},
    });
    expect(processResult(signalled("SIGSEGV"), 1000)).toMatchObject({ ok: false, error: "killed by SIGSEGV" });
    expect(processResult(signalled("SIGXCPU"), 1000)).toMatchObject({
      ok: false,
      error: "killed by SIGXCPU (its CPU time limit)",
    });
    expect(processResult({ end: { kind: "timeout" }, stdout: "", stderr: "", truncatedAt: {} }, 1500)).toMatchObject({
      ok: false,
      timedOut: true,
      error: "timed out after 1.5 s",
    });
    expect(processResult(exited("partial\n", "", 1), 1000)).toMatchObject({
      ok: false,
      error: "exited with code 1: partial",
    });
  });

  it("keeps at most MAX_LOG_LINES lines of log, each cut to a readable length", () => {
    const result = processResult(exited("x\n".repeat(5000), `${"e".repeat(10_000)}\n`), 1000);
    expect(result.logs).toHaveLength(MAX_LOG_LINES);
    expect(result.logs[0]).toBe(`${"e".repeat(8192)}[1808 more characters]`);
    expect(result.logs.at(-1)).toBe("[further lines not kept]");
  });

  it("notes the streams cut at the output limit, whatever the number of lines", () => {
    const result = processResult({ ...exited("x\n".repeat(5000)), truncatedAt: { stdout: 10_000 } }, 1000);
    expect(result.logs).toHaveLength(MAX_LOG_LINES);
    expect(result.logs.slice(-2)).toEqual(["[further lines not kept]", "[stdout truncated at 10000 bytes]"]);
  });
});

describe("LogLines", () => {
  it("passes lines on as they come, up to the limit", () => {
    const streamed: string[] = [];
    const logs = new LogLines((line) => streamed.push(line));
    for (let i = 0; i < MAX_LOG_LINES + 5; i++) logs.push(i === 0 ? "y".repeat(9000) : `line ${i}`);
    expect(streamed).toHaveLength(MAX_LOG_LINES + 1);
    expect(streamed[0]).toBe(`${"y".repeat(8192)}[808 more characters]`);
    expect(streamed.at(-1)).toBe("[further lines not kept]");
    expect(logs.kept()).toHaveLength(MAX_LOG_LINES);
    expect(logs.kept().at(-1)).toBe("[further lines not kept]");
  });
});
