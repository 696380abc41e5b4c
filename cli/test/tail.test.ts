import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExecution } from "@wf/shared/client";
import type { NatsServerHandle } from "@wf/shared/testing";
import { definitionOf, startNatsServer, startRuntime, testConfig, waitForStatus, type InProcessRuntime } from "../../test/support/runtime";
import { startCli } from "./cli-process";

const XYZ = definitionOf(`
name: xyz
steps:
  - { name: one, type: transform, output: { n: 1 } }
  - { name: two, type: transform, output: "{{ steps.one.output.n + 1 }}" }
`);

let server: NatsServerHandle;
let rt: InProcessRuntime;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startNatsServer();
  rt = await startRuntime(testConfig(server));
  env = { NATS_URL: server.url, WF_NAMESPACE: rt.ns };
});
afterAll(async () => {
  await rt?.stop();
  await server?.stop();
});

function start(workflowId: string): Promise<string> {
  return startExecution(rt.platform.js, rt.ns, {
    workflow: { id: workflowId, name: "xyz", ownerId: "ops", version: null, definition: XYZ },
    triggerSource: "open_api",
  });
}

describe("wf tail", () => {
  it("follows new events of one workflow, printing the subject filter, until stopped", async () => {
    const tail = startCli(["tail", "--workflow", "cli-xyz"], env);
    await tail.waitForOutput("following");
    expect(tail.stderr()).toContain(`nats sub '${rt.ns}.evt.*.cli-xyz.*.*'`);
    const other = await start("cli-other");
    const id = await start("cli-xyz");
    await waitForStatus(rt.platform, other);
    await tail.waitForOutput("■ execution COMPLETED");
    const lines = tail.stdout().trim().split("\n");
    const prefix = new RegExp(`^\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z  ${id.slice(-8)}  cli-xyz  `);
    for (const line of lines) expect(line).toMatch(prefix);
    expect(lines.map((l) => l.replace(prefix, ""))).toEqual([
      `▶ execution ${id} started (open_api)`,
      "▶ step one started (attempt 1)",
      expect.stringMatching(/^✓ step one completed in \d+ ms → \{"n":1\}$/),
      "▶ step two started (attempt 1)",
      expect.stringMatching(/^✓ step two completed in \d+ ms → 2$/),
      expect.stringMatching(/^■ execution COMPLETED in \d+ ms$/),
    ]);
    tail.signal("SIGINT");
    expect((await tail.exited).code).toBe(0);
  });

  it("replays past events of an execution with --since, as JSON with --json", async () => {
    const id = await start("cli-xyz");
    await waitForStatus(rt.platform, id);
    const tail = startCli(["tail", "--execution", id, "--since", "10m", "--json"], env);
    await tail.waitForOutput('"type":"exec_completed"');
    tail.signal("SIGTERM");
    const r = await tail.exited;
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; executionId: string });
    expect(events.map((e) => e.type)).toEqual(["exec_started", "step_started", "step_completed", "step_started", "step_completed", "exec_completed"]);
    expect(new Set(events.map((e) => e.executionId))).toEqual(new Set([id]));
  });

  it("exits 2 for a filter that is not a subject token or a bad --since", async () => {
    const badId = await startCli(["tail", "--workflow", "a.b"], env).exited;
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain("--workflow a.b");
    const badSince = await startCli(["tail", "--since", "yesterday"], env).exited;
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain("--since yesterday");
  });
});
