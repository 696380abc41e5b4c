import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { uniqueNamespace, waitForStatus } from "../support/runtime";
import { runCli, startCli, useTestService, workflowFiles } from "./cli-process";

const files = await workflowFiles({
  ok: `
name: cli demo
variables:
  n: { type: number, required: true }
  label: { type: string, default: total }
steps:
  - name: fetch
    type: transform
    output: { rows: "{{ vars.n * 2 }}" }
  - name: calc
    type: code
    language: javascript
    input:
      rows: "{{ steps.fetch.output.rows }}"
    code: |
      console.log("rows are", input.rows);
      return { [vars.label]: input.rows + 1 };
`,
  failing: `
name: failing
steps:
  - { name: first, type: transform, output: 1 }
  - name: explode
    type: code
    language: javascript
    code: throw new Error("boom at the second step")
`,
  slow: `
name: slow
steps:
  - { name: pause, type: wait, seconds: 600 }
`,
});

const service = useTestService();

describe("wf run", () => {
  it("runs a workflow with a --var, prints each step live and the output, exit 0", async () => {
    const r = await runCli(["run", files.ok, "--var", "n=21", "--monitor"], service().env);
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^execution \w+ of workflow cli-cli_demo \(owner local/);
    expect(out).toMatch(/\+\d+\.\d{3}s {2}▶ step fetch started \(attempt 1\)/);
    // Its expression is the service's first, which starts an evaluation host: past a second under load.
    expect(out).toMatch(/✓ step fetch completed in (\d+ ms|\d+\.\d{3} s) → \{"rows":42\}/);
    expect(out).toMatch(/▶ step calc started \(attempt 1\)/);
    expect(out).toMatch(/ {4}calc │ rows are 42/);
    expect(out).toMatch(/✓ step calc completed in .* → \{"total":43\}/);
    expect(out).toMatch(/■ execution COMPLETED in /);
    expect(out).toContain('output: {\n  "total": 43\n}');
    const id = /^execution (\w+)/.exec(out)![1]!;
    const snap = await waitForStatus(service().rt.platform, id);
    expect(snap).toMatchObject({
      status: "COMPLETED",
      workflowId: "cli-cli_demo",
      ownerId: "local",
      triggerSource: "console",
    });
  });

  it("prints raw events and the result as JSON lines with --json", async () => {
    const r = await runCli(
      ["run", files.ok, "--var", "n=1", "--var", "label=sum", "--owner", "ops", "--json"],
      service().env,
    );
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; ownerId?: string; output?: unknown });
    expect(lines[0]).toMatchObject({ type: "exec_started", ownerId: "ops" });
    expect(lines.at(-2)).toMatchObject({ type: "exec_completed" });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "COMPLETED", output: { sum: 3 }, error: null });
  });

  it("exits 1 and prints the error when the execution fails", async () => {
    const r = await runCli(["run", files.failing], service().env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✓ step first completed/);
    expect(r.stdout).toMatch(/✗ step explode failed: .*boom at the second step/);
    expect(r.stdout).toMatch(/✗ execution FAILED in .*boom at the second step/);
    expect(r.stdout).toMatch(/^error: .*boom at the second step/m);
  });

  it("exits 2 naming the variable for an unknown --var, a bad value or a missing required one", async () => {
    const unknown = await runCli(["run", files.ok, "--var", "n=1", "--var", "lable=x"], service().env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--var lable: no variable named `lable`.*did you mean `label`/);
    const bad = await runCli(["run", files.ok, "--var", "n=many"], service().env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--var n: `many` is not a number");
    const missing = await runCli(["run", files.ok], service().env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required variable `n` (number) is missing");
  });

  it("on Ctrl-C stops following, prints the id and leaves the execution running", async () => {
    const cli = startCli(["run", files.slow], service().env);
    await cli.waitForOutput("⏸ step pause waiting until");
    cli.signal("SIGINT");
    const r = await cli.exited;
    expect(r.code).toBe(130);
    const id = /^execution (\w+)/.exec(r.stdout)![1]!;
    expect(r.stderr).toContain(`execution ${id} continues in the service`);
    const snap = await service().rt.platform.store.executions.get(id);
    expect(snap?.value.status).toBe("RUNNING");
  });

  it("without an executor, hints at starting the service, then exits 3 at --timeout", async () => {
    const idle = { NATS_URL: service().server.url, WF_NAMESPACE: uniqueNamespace() };
    const r = await runCli(["run", files.failing, "--timeout", "11"], idle);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no executor has picked up execution");
    expect(r.stderr).toContain("npm start");
    expect(r.stderr).toMatch(/--timeout 11 s elapsed; execution \w+ continues in the service/);
  });

  it("exits 2 with advice when no NATS answers", async () => {
    const r = await runCli(["run", files.failing], { NATS_URL: `nats://127.0.0.1:${await closedPort()}` });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot reach NATS");
    expect(r.stderr).toContain("npm start");
    expect(r.stderr).toContain("NATS_URL");
  });
});

/** A port nothing listens on: one the OS just handed out and we released. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
