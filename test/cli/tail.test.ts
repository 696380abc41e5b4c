import { describe, expect, it } from "vitest";
import { startExecution } from "@wf/shared/client";
import { definitionOf, waitForStatus } from "../support/runtime";
import { startCli, useTestService } from "./cli-process";

const XYZ = definitionOf(`
name: xyz
steps:
  - { name: one, type: transform, output: { n: 1 } }
  - { name: two, type: transform, output: "{{ steps.one.output.n + 1 }}" }
`);

const service = useTestService();
/**
 * The time of a step or run with an expression: the service's first starts its evaluation host, past a second under
 * load.
 */
const DURATION = String.raw`(\d+ ms|\d+\.\d{3} s)`;

function start(workflowId: string): Promise<string> {
  return startExecution(service().rt.platform.js, service().rt.ns, {
    workflow: { id: workflowId, name: "xyz", ownerId: "ops", version: null, definition: XYZ },
    triggerSource: "open_api",
  });
}

describe("wf tail", () => {
  it("follows new events of one workflow, printing the subject filter, until stopped", async () => {
    const tail = startCli(["tail", "--workflow", "cli-xyz"], service().env);
    await tail.waitForOutput("following");
    expect(tail.stderr()).toContain(`nats sub '${service().rt.ns}.evt.*.cli-xyz.*.*'`);
    const other = await start("cli-other");
    const id = await start("cli-xyz");
    await waitForStatus(service().rt.platform, other);
    await tail.waitForOutput("■ execution COMPLETED");
    const lines = tail.stdout().trim().split("\n");
    const prefix = new RegExp(`^\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z  ${id.slice(-8)}  cli-xyz  `);
    for (const line of lines) expect(line).toMatch(prefix);
    expect(lines.map((l) => l.replace(prefix, ""))).toEqual([
      `▶ execution ${id} started (open_api)`,
      "▶ step one started (attempt 1)",
      expect.stringMatching(/^✓ step one completed in \d+ ms → \{"n":1\}$/),
      "▶ step two started (attempt 1)",
      expect.stringMatching(new RegExp(`^✓ step two completed in ${DURATION} → 2$`)),
      expect.stringMatching(new RegExp(`^■ execution COMPLETED in ${DURATION}$`)),
    ]);
    tail.signal("SIGINT");
    expect((await tail.exited).code).toBe(0);
  });

  it("replays past events of an execution with --since, as JSON with --json", async () => {
    const id = await start("cli-xyz");
    await waitForStatus(service().rt.platform, id);
    const tail = startCli(["tail", "--execution", id, "--since", "10m", "--json"], service().env);
    await tail.waitForOutput('"type":"exec_completed"');
    tail.signal("SIGTERM");
    const r = await tail.exited;
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; executionId: string });
    expect(events.map((e) => e.type)).toEqual([
      "exec_started",
      "step_started",
      "step_completed",
      "step_started",
      "step_completed",
      "exec_completed",
    ]);
    expect(new Set(events.map((e) => e.executionId))).toEqual(new Set([id]));
  });

  it("exits 2 for a filter that is not a subject token or a bad --since", async () => {
    const badId = await startCli(["tail", "--workflow", "a.b"], service().env).exited;
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain("--workflow a.b");
    const badSince = await startCli(["tail", "--since", "yesterday"], service().env).exited;
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain("--since yesterday");
  });
});
