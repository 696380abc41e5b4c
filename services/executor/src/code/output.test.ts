import { describe, expect, it } from "vitest";
import { MAX_LOG_LINES, processResult } from "./output";
import type { Outcome } from "./supervise";

function exited(stdout: string, stderr = "", code = 0): Outcome {
  return { end: { kind: "exited", status: { code, signal: null } }, stdout, stderr };
}

describe("processResult", () => {
  it("parses the last non-empty stdout line as JSON and leaves it out of the logs", () => {
    expect(processResult(exited("one\r\n{\"a\": 1}\r\n\n  \n", "err\n"), 1000)).toEqual({
      ok: true,
      output: { a: 1 },
      logs: ["err", "one", "", "  "],
    });
    expect(processResult(exited("7"), 1000)).toEqual({ ok: true, output: 7, logs: [] });
  });

  it("takes the whole trimmed stdout as text when the last line is not JSON", () => {
    expect(processResult(exited("\n {x}\nplain \n"), 1000)).toEqual({ ok: true, output: "{x}\nplain", logs: ["", " {x}", "plain "] });
    expect(processResult(exited(""), 1000)).toEqual({ ok: true, output: "", logs: [] });
  });

  it("reports how the process ended", () => {
    const signalled: Outcome = { end: { kind: "exited", status: { code: null, signal: "SIGSEGV" } }, stdout: "", stderr: "" };
    expect(processResult(signalled, 1000)).toMatchObject({ ok: false, error: "killed by SIGSEGV" });
    expect(processResult({ end: { kind: "timeout" }, stdout: "", stderr: "" }, 1500)).toMatchObject({
      ok: false,
      timedOut: true,
      error: "timed out after 1.5 s",
    });
    expect(processResult(exited("partial\n", "", 1), 1000)).toMatchObject({ ok: false, error: "exited with code 1: partial" });
  });

  it("keeps at most MAX_LOG_LINES lines of log, each cut to a readable length", () => {
    const result = processResult(exited("x\n".repeat(5000), `${"e".repeat(10_000)}\n`), 1000);
    expect(result.logs).toHaveLength(MAX_LOG_LINES);
    expect(result.logs[0]).toBe(`${"e".repeat(8192)}[1808 more characters]`);
    expect(result.logs.at(-1)).toBe("[further lines not kept]");
  });
});
