import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openOwnerSecretsBox, setSecret } from "@wf/shared/secrets";
import { newId } from "@wf/shared/execution";
import { sleepers, waitFor } from "@wf/testing";
import { eventsOf, model, priced, runToEnd, useAiEnv } from "./support/ai-env";
import { LogCollector } from "./support/log-collector";
import { McpHttpTestServer } from "./support/mcp-http-server";
import { run, waitForStatus } from "../support/runtime";

const STDIO_SERVER = fileURLToPath(new URL("./support/mcp-stdio-server.mts", import.meta.url));
const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** By absolute URL: the server's working directory in the sandbox has no node_modules above it. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
// The operator's part: the stdio server's command allowed, and what it needs readable (Node, tsx
// and the MCP SDK under node_modules, its own file) besides what the sandbox shows every step.
const env = useAiEnv({
  WF_MCP_STDIO_ALLOW: process.execPath,
  WF_SANDBOX_READ_ONLY: [join(REPO, "node_modules"), join(REPO, "test/ai/support")].join(","),
});
let crm: McpHttpTestServer;
let collector: LogCollector;
beforeAll(async () => {
  crm = await McpHttpTestServer.start();
  collector = await LogCollector.start();
});
afterAll(async () => {
  await crm?.close();
  await collector?.close();
});

/** The stdio server's argv (where it reports, under which name), as an agent's `command`. */
function stdioCommand(name: string): string {
  return JSON.stringify([process.execPath, "--import", TSX_LOADER, STDIO_SERVER, collector.url, name]);
}

/**
 * An agent whose model calls `<server>__export_all` (a 17 MiB answer), then `next`: the run completes, the first
 * call's result being the error the model sees; answers the run and the result of `next` as the model got it.
 */
async function afterTooLargeAnswer(
  mcp: string,
  server: string,
  next: { name: string; arguments: Record<string, unknown> },
) {
  const m = model("claude");
  env().anthropic.script(
    m,
    { toolCalls: [{ name: `${server}__export_all`, arguments: {} }] },
    { toolCalls: [next] },
    { text: "Too large; answered from the next call." },
  );
  const s = await runToEnd(
    env(),
    `
name: agent-big-answer
agents:
  - { name: helper, model: ${m}, mcp: [ ${mcp} ] }
steps:
  - { name: ask, type: agent, agent: helper, prompt: Export everything }
`,
  );
  expect(s.status, s.error ?? "").toBe("COMPLETED");
  const [, second, third] = env().anthropic.requests(m);
  const lastResult = (request: typeof second) =>
    (request!.body.messages as { content: { is_error?: boolean; content?: string }[] }[]).at(-1)!.content[0]!;
  expect(lastResult(second)).toEqual(
    expect.objectContaining({
      is_error: true,
      content:
        "tool export_all failed: the MCP server's answer was not taken: the answer is larger than 16777216 bytes, the most taken of one answer from such a server",
    }),
  );
  return { s, next: lastResult(third) };
}

describe("agent step with MCP servers (streamable HTTP and stdio)", () => {
  it("discovers both servers' tools, calls them with the model's arguments, feeds results back, and records every call", async () => {
    const m = model();
    const owner = `owner-${newId()}`;
    const token = `crm-token-${newId()}`;
    const box = await openOwnerSecretsBox(env().rt.platform);
    await setSecret(env().rt.platform.store, box, owner, "crm_token", token);
    const files = `files-${newId()}`;
    env().openai.script(
      m,
      {
        toolCalls: [
          { name: "crm__lookup_ticket", arguments: { id: 7 } },
          { name: "files__read_file", arguments: { path: "policies/refunds.md" } },
        ],
        usage: { prompt: 120, completion: 30 },
      },
      {
        toolCalls: [{ name: "crm__escalate", arguments: { id: 7, team: "billing" } }],
        usage: { prompt: 200, completion: 20 },
      },
      { text: "Ticket 7 is high priority; escalated to billing.", usage: { prompt: 260, completion: 15 } },
    );
    const s = await runToEnd(
      env(),
      `
name: agent-tools
agents:
  - name: support
    model: ${m}
    instructions: You triage support tickets.
    max_turns: 5
    mcp:
      - name: crm
        url: ${crm.url}
        headers: { Authorization: "Bearer {{ secrets.crm_token }}" }
      - name: files
        command: ${stdioCommand(files)}
steps:
  - name: triage
    type: agent
    agent: support
    prompt: "Triage ticket {{ 3 + 4 }}"
`,
      { ownerId: owner },
    );
    expect(s.status, s.error ?? "").toBe("COMPLETED");
    expect(s.output).toBe("Ticket 7 is high priority; escalated to billing.");

    // What the servers saw.
    const mine = crm.calls.filter((c) => c.authorization === `Bearer ${token}`);
    expect(mine.map((c) => [c.tool, c.args])).toEqual([
      ["lookup_ticket", { id: 7 }],
      ["escalate", { id: 7, team: "billing" }],
    ]);
    const seen = collector.of(files).filter((e) => e.tool);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ tool: "read_file", args: { path: "policies/refunds.md" } });
    // The stdio server gets a minimal environment: none of the service's configuration.
    expect((seen[0]!.env as string[]).some((k) => k.startsWith("WF_") || k === "NATS_URL")).toBe(false);

    // What the model saw: the tools, then the results of its calls.
    const reqs = env().openai.requests(m);
    expect(reqs).toHaveLength(3);
    const tools = (reqs[0]!.body.tools as { function: { name: string; parameters: { properties: object } } }[])
      .map((t) => t.function.name)
      .sort();
    expect(tools).toEqual([
      "crm__crm_down",
      "crm__escalate",
      "crm__export_all",
      "crm__lookup_ticket",
      "files__export_all",
      "files__probe",
      "files__read_file",
    ]);
    const second = reqs[1]!.body.messages as { role: string; content?: string; tool_call_id?: string }[];
    expect(second[0]).toEqual({ role: "system", content: "You triage support tickets." });
    expect(second[1]).toEqual({ role: "user", content: "Triage ticket 7" });
    expect(second.filter((x) => x.role === "tool")).toEqual([
      { role: "tool", tool_call_id: "call_0", content: '{"id":7,"priority":"high"}' },
      {
        role: "tool",
        tool_call_id: "call_1",
        content: "contents of policies/refunds.md: the refund policy is 30 days",
      },
    ]);

    // What the step records: every call, and the usage of the three model calls.
    expect(s.steps.triage!.toolCalls!.map((c) => [c.turn, c.server, c.tool, c.arguments, c.isError])).toEqual([
      [1, "crm", "lookup_ticket", { id: 7 }, false],
      [1, "files", "read_file", { path: "policies/refunds.md" }, false],
      [2, "crm", "escalate", { id: 7, team: "billing" }, false],
    ]);
    expect(s.steps.triage!.toolCalls![2]!.result).toBe("ticket 7 escalated to billing");
    const reported = env().openai.usage(m);
    expect(s.usage).toEqual({
      promptTokens: reported.prompt,
      completionTokens: reported.completion,
      totalTokens: reported.prompt + reported.completion,
      costUsd: priced("oa", reported),
    });
    const events = await eventsOf(env(), s.id);
    expect(events.filter((e) => e.type === "step_tool_call").map((e) => e.data.tool)).toEqual([
      "lookup_ticket",
      "read_file",
      "escalate",
    ]);
    expect(events.filter((e) => e.type === "step_usage")).toHaveLength(3);
    // The header's secret reached the server, and nothing stored or published.
    expect(JSON.stringify(s)).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain(token);
    // Closed after the run: the stdio server saw its input end.
    await waitFor(() => collector.of(files).some((e) => e.closed), {
      timeoutMs: 10_000,
      what: "the stdio MCP server to be closed",
    });
  });

  it("runs a stdio MCP server in the code steps' sandbox: its own uid, files, processes and way out, all gone after", async () => {
    const m = model();
    const name = `probe-${newId()}`;
    const hostFile = `/tmp/wf-host-${newId()}`;
    const inRepo = join(REPO, `.wf-probe-${newId()}`);
    const inVarTmp = `/var/tmp/wf-probe-${newId()}`;
    const inHostTmp = `/tmp/wf-probe-${newId()}`;
    await writeFile(hostFile, "the host's /tmp");
    env().openai.script(
      m,
      {
        toolCalls: [
          {
            name: "files__probe",
            arguments: { writeTo: [inRepo, inVarTmp, inHostTmp, hostFile], executorPid: process.pid },
          },
        ],
      },
      { text: "probed" },
    );
    try {
      const s = await runToEnd(
        env(),
        `
name: agent-stdio-sandbox
agents:
  - { name: a, model: ${m}, mcp: [ { name: files, command: ${stdioCommand(name)} } ] }
steps:
  - { name: probe, type: agent, agent: a, prompt: probe }
`,
      );
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      const [seen] = collector.of(name).filter((e) => e.tool === "probe");
      // The repository is not there but for what the operator made readable; /tmp is its own.
      expect(seen!.writes).toEqual({ [inRepo]: "EROFS", [inVarTmp]: "ENOENT", [inHostTmp]: "ok", [hostFile]: "ok" });
      expect(existsSync(inRepo) || existsSync(inVarTmp) || existsSync(inHostTmp)).toBe(false);
      expect(await readFile(hostFile, "utf8")).toBe("the host's /tmp");
      expect(seen).toMatchObject({ privateWrite: "ok", home: "/step" });
      expect(seen!.uid).toBeGreaterThanOrEqual(1000);
      // A PID namespace of its own, which it starts: the executor is not in its /proc.
      expect(seen!.pid).toBe(1);
      expect(seen!.executorVisible).toBe(false);
      // Stopped with the run, with everything it started.
      await waitFor(() => collector.of(name).some((e) => e.closed), {
        timeoutMs: 10_000,
        what: "the stdio MCP server to be closed",
      });
      await waitFor(() => sleepers(name).length === 0, {
        timeoutMs: 10_000,
        what: "the server's processes to be gone",
      });
    } finally {
      await Promise.all([hostFile, inRepo, inVarTmp, inHostTmp].map((f) => rm(f, { force: true })));
    }
  });

  it("starts only the commands the operator allows", async () => {
    const m = model();
    env().openai.script(m, { text: "never called" });
    const s = await runToEnd(
      env(),
      `
name: agent-stdio-refused
agents:
  - { name: a, model: ${m}, mcp: [ { name: shell, command: ["bash", "-c", "cat /etc/passwd"] } ] }
steps:
  - { name: probe, type: agent, agent: a, prompt: probe, retry: { max_attempts: 3, initial_delay: 0.01 } }
`,
    );
    expect(s.status).toBe("FAILED");
    expect(s.steps.probe).toMatchObject({ attempts: 1 });
    expect(s.steps.probe!.error).toContain(
      "`bash` is not a command this service starts stdio MCP servers with (WF_MCP_STDIO_ALLOW: it allows",
    );
    expect(env().openai.requests(m)).toHaveLength(0);
  });

  it("a failing tool is an error result the model sees, not a failed step", async () => {
    const m = model("claude");
    env().anthropic.script(
      m,
      { text: "Let me check.", toolCalls: [{ name: "crm__crm_down", arguments: {} }] },
      { toolCalls: [{ name: "crm__no_such_tool", arguments: {} }] },
      { text: "The CRM is down; try later." },
    );
    const s = await runToEnd(
      env(),
      `
name: agent-tool-error
agents:
  - { name: helper, model: ${m}, mcp: [ { name: crm, url: "${crm.url}" } ] }
steps:
  - { name: ask, type: agent, agent: helper, prompt: Check the CRM }
`,
    );
    expect(s.status, s.error ?? "").toBe("COMPLETED");
    expect(s.output).toBe("The CRM is down; try later.");
    const [, second, third] = env().anthropic.requests(m);
    const results = (
      second!.body.messages as { role: string; content: { type: string; is_error?: boolean; content?: string }[] }[]
    ).at(-1)!.content;
    expect(results).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_0",
        is_error: true,
        content: expect.stringContaining("the CRM is down for maintenance"),
      },
    ]);
    const unknown = (third!.body.messages as { content: { is_error?: boolean; content?: string }[] }[]).at(-1)!
      .content[0]!;
    expect(unknown).toMatchObject({ is_error: true, content: "there is no tool named crm__no_such_tool" });
    expect(s.steps.ask!.toolCalls!.map((c) => c.isError)).toEqual([true, true]);
  });

  it("an MCP answer past 16 MiB is not taken: the call is an error result the model sees, and the next call connects again", async () => {
    const { s, next } = await afterTooLargeAnswer(`{ name: crm, url: "${crm.url}" }`, "crm", {
      name: "crm__lookup_ticket",
      arguments: { id: 7 },
    });
    expect(next).toMatchObject({ content: expect.stringContaining('"priority":"high"') });
    expect(s.steps.ask!.toolCalls!.map((c) => c.isError)).toEqual([true, false]);
  });

  it("a stdio MCP answer past 16 MiB is not taken: the server is stopped, the model sees why, and the next call starts it again", async () => {
    const name = `big-${newId()}`;
    const { next } = await afterTooLargeAnswer(`{ name: files, command: ${stdioCommand(name)} }`, "files", {
      name: "files__read_file",
      arguments: { path: "refunds.md" },
    });
    expect(next).toMatchObject({ content: expect.stringContaining("the refund policy is 30 days") });
    // The connection was dropped for the answer: the next call started the server again.
    const seen = collector.of(name);
    expect(seen.filter((e) => e.started === true)).toHaveLength(2);
    expect(seen.filter((e) => e.tool !== undefined).map((e) => e.tool)).toEqual(["export_all", "read_file"]);
  });

  it("streams an agent with monitoring (tool calls arrive in pieces) and stops at max_turns", async () => {
    const m = model();
    const looping = { toolCalls: [{ name: "crm__lookup_ticket", arguments: { id: 1 } }] };
    env().openai.script(m, looping, looping);
    const id = await run(
      env().rt.platform,
      `
name: agent-turns
agents:
  - { name: loop, model: ${m}, max_turns: 2, mcp: [ { name: crm, url: "${crm.url}" } ] }
steps:
  - { name: spin, type: agent, agent: loop, prompt: go }
`,
      { monitoring: true },
    );
    const s = await waitForStatus(env().rt.platform, id);
    expect(s.status).toBe("FAILED");
    expect(s.error).toBe("step `spin`: agent `loop` did not finish within max_turns (2)");
    expect(
      env()
        .openai.requests(m)
        .every((r) => r.body.stream === true),
    ).toBe(true);
    expect(s.steps.spin!.toolCalls!.map((c) => c.arguments)).toEqual([{ id: 1 }, { id: 1 }]);
    expect(s.steps.spin!.usage!.totalTokens).toBe(2 * (11 + 7));
  });

  it("reuses one MCP session across the agent steps of an execution and ends it after", async () => {
    const m = model();
    const marker = `reuse-${newId()}`;
    env().openai.script(
      m,
      { toolCalls: [{ name: "crm__escalate", arguments: { id: 1, team: marker } }] },
      { text: "first done" },
      { toolCalls: [{ name: "crm__escalate", arguments: { id: 2, team: marker } }] },
      { text: "second done" },
    );
    const s = await runToEnd(
      env(),
      `
name: agent-reuse
agents:
  - { name: a, model: ${m}, mcp: [ { name: crm, url: "${crm.url}" } ] }
steps:
  - { name: one, type: agent, agent: a, prompt: first }
  - { name: two, type: agent, agent: a, prompt: second }
`,
    );
    expect(s.status, s.error ?? "").toBe("COMPLETED");
    const calls = crm.calls.filter((c) => c.args.team === marker);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.session).toBeDefined();
    expect(calls[1]!.session).toBe(calls[0]!.session);
    await waitFor(() => crm.sessionsClosed.includes(calls[0]!.session!), {
      timeoutMs: 10_000,
      what: "the MCP session to be ended",
    });
  });

  it("an MCP server that cannot be reached fails the step naming it", async () => {
    const m = model();
    const s = await runToEnd(
      env(),
      `
name: agent-unreachable
agents:
  - { name: a, model: ${m}, mcp: [ { name: gone, url: "http://127.0.0.1:1/mcp" } ] }
steps:
  - { name: one, type: agent, agent: a, prompt: first }
`,
    );
    expect(s.status).toBe("FAILED");
    expect(s.error).toMatch(/^step `one`: MCP server `gone` \(http:\/\/127\.0\.0\.1:1\/mcp\): cannot connect/);
    expect(env().openai.requests(m)).toHaveLength(0);
  });

  it("an MCP url the egress policy refuses fails the step, not retried, and the server is never reached", async () => {
    // 127.0.0.3 is loopback, outside the tests' allowance (127.0.0.1 and 127.0.0.2): refused as the service's default.
    const internal = await McpHttpTestServer.start("127.0.0.3");
    try {
      const m = model();
      const s = await runToEnd(
        env(),
        `
name: agent-refused-url
agents:
  - { name: a, model: ${m}, mcp: [ { name: internal, url: "${internal.url}" } ] }
steps:
  - { name: one, type: agent, agent: a, prompt: first, retry: { max_attempts: 3, initial_delay: 0 } }
`,
      );
      expect(s.status).toBe("FAILED");
      expect(s.error).toBe(
        `step \`one\`: MCP server \`internal\`: ${internal.url} is refused: 127.0.0.3 is a loopback address (allow it with WF_EGRESS_ALLOW)`,
      );
      expect(s.steps.one!.attempts).toBe(1);
      expect(internal.requests).toBe(0);
      expect(env().openai.requests(m)).toHaveLength(0);
    } finally {
      await internal.close();
    }
  });
});
