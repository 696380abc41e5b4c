import { describe, expect, it } from "vitest";
import { runCli, workflowFiles } from "./cli-process";

const files = await workflowFiles({
  good: `
name: good
steps:
  - { name: a, type: transform, output: 1 }
  - name: b
    type: code
    language: javascript
    code: return 2
`,
  bad: `
name: bad
steps:
  - name: a
    type: transfrom
    output: 1
  - name: b
    type: code
    language: cobol
    code: x
`,
});

describe("wf validate", () => {
  it("reports a valid file with its step count, exit 0", async () => {
    const r = await runCli(["validate", files.good]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`${files.good}: valid (2 steps)`);
  });

  it("reports every mistake with file:line:col, exit 1", async () => {
    const r = await runCli(["validate", files.bad]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${escape(files.bad)}:5:11  steps\\[0\\]\\.type: .*transfrom`));
    expect(lines[1]).toMatch(new RegExp(`^${escape(files.bad)}:9:15  steps\\[1\\]\\.language: .*cobol`));
  });

  it("exits 2 for a missing file, an unknown flag or no file", async () => {
    const missing = await runCli(["validate", `${files.good}.nope`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file");
    const flag = await runCli(["validate", files.good, "--strict"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--strict");
    expect((await runCli(["validate"])).code).toBe(2);
  });

  it("documents the exit codes in wf --help, through the launcher users run (cli/bin/wf.mjs)", async () => {
    const r = await runCli(["--help"], {}, { fromSource: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exit codes:[\s\S]*\b3\b[\s\S]*--timeout/);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
