import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "@wf/shared/auth";
import { testUser, waitFor } from "@wf/testing";
import { model, runToEnd, useAiEnv } from "./support/ai-env";
import { McpHttpTestServer } from "./support/mcp-http-server";

/** The operator's ceiling: above a free owner's share (4, PLAN_MCP_CONNECTIONS), below a pro owner's (16). */
const CEILING = 6;
const FREE_SHARE = 4;
const ITEMS = 8;

const env = useAiEnv({ WF_MCP_CONNECTIONS: String(CEILING) });

const servers: McpHttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * Runs, for an owner on `plan`, a foreach whose agent's headers differ by item against a server of its own: each item
 * opens a connection, kept idle until the run ends or its owner needs the room.
 */
async function runPerItem(plan: Plan): Promise<McpHttpTestServer> {
  const crm = await McpHttpTestServer.start();
  servers.push(crm);
  const owner = testUser({ plan });
  await env().rt.platform.store.users.create(owner);
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
    { ownerId: owner.id },
  );
  expect(s.status, s.error ?? "").toBe("COMPLETED");
  expect(s.output).toEqual(Array.from({ length: ITEMS }, (_, i) => `ticket ${i + 1} looked up`));
  // Each item's call went with its own headers, on a session of its own.
  expect(crm.calls.map((c) => c.authorization)).toEqual(
    Array.from({ length: ITEMS }, (_, i) => `Bearer item-${i + 1}`),
  );
  expect(crm.sessionsOpened).toHaveLength(ITEMS);
  // Those closed to make room were ended on the server, and the rest with the run.
  await waitFor(() => crm.sessionsClosed.length === ITEMS, { what: "every session to be ended" });
  return crm;
}

describe("MCP connections of an owner on an executor", () => {
  it("past a free owner's share, close its least recently used idle connection: 8 items keep 4 open, not 8", async () => {
    expect((await runPerItem("free")).mostOpen).toBe(FREE_SHARE);
  });

  it("hold a larger plan's owner to the operator's ceiling: a pro owner's 8 items keep 6 open", async () => {
    expect((await runPerItem("pro")).mostOpen).toBe(CEILING);
  });
});
