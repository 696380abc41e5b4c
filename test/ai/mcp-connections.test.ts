import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { waitFor } from "@wf/testing";
import { model, runToEnd, useAiEnv } from "./support/ai-env";
import { McpHttpTestServer } from "./support/mcp-http-server";

const PER_OWNER = 2;
const ITEMS = 5;

const env = useAiEnv({ WF_MCP_CONNECTIONS: String(PER_OWNER) });

let crm: McpHttpTestServer;
beforeAll(async () => {
  crm = await McpHttpTestServer.start();
});
afterAll(async () => {
  await crm?.close();
});

describe("MCP connections of an owner on an executor", () => {
  it("past the owner's bound, close its least recently used idle connection: a foreach whose headers differ by item keeps 2 open, not 5", async () => {
    const m = model();
    for (let i = 1; i <= ITEMS; i++)
      env().openai.script(
        m,
        { toolCalls: [{ name: "crm__lookup_ticket", arguments: { id: i } }] },
        { text: `ticket ${i} looked up` },
      );
    const s = await runToEnd(
      env(),
      `
name: agent-per-item
agents:
  - name: support
    model: ${m}
    mcp:
      - { name: crm, url: ${crm.url}, headers: { Authorization: "Bearer item-{{ item }}" } }
steps:
  - name: each
    type: foreach
    items: "{{ [1..${ITEMS}] }}"
    steps:
      - { name: ask, type: agent, agent: support, prompt: "Look up ticket {{ item }}" }
`,
      { ownerId: `owner-${newId()}` },
    );
    expect(s.status, s.error ?? "").toBe("COMPLETED");
    expect(s.output).toEqual(Array.from({ length: ITEMS }, (_, i) => `ticket ${i + 1} looked up`));
    // Each item's call went with its own headers, on a session of its own.
    expect(crm.calls.map((c) => c.authorization)).toEqual(
      Array.from({ length: ITEMS }, (_, i) => `Bearer item-${i + 1}`),
    );
    expect(crm.sessionsOpened).toHaveLength(ITEMS);
    expect(crm.mostOpen).toBe(PER_OWNER);
    // Those closed to make room were ended on the server, and the rest with the run.
    await waitFor(() => crm.sessionsClosed.length === ITEMS, { what: "every session to be ended" });
  });
});
