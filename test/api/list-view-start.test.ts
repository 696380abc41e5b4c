import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEdge } from "@wf/edge";
import { createApiKey } from "@wf/shared/auth";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { startNatsServer, testUser, waitFor, type NatsServerHandle } from "@wf/testing";
import { testConfig } from "../support/runtime";
import { ALL_SCOPES } from "./support";

/**
 * When an edge builds its views of the execution and approval lists (WF_LIST_VIEW_AT_START): each
 * view is one consumer of its index bucket, so its presence on the server tells.
 */
let server: NatsServerHandle;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await server?.stop();
});

type Lists = "executions" | "approvals";

async function edge(
  atStart: "0" | "1",
): Promise<{ platform: Platform; url: string; viewConsumers(lists: Lists): Promise<number> }> {
  const config = testConfig(server, { WF_LIST_VIEW_AT_START: atStart, PORT: "0", HOST: "127.0.0.1" });
  const platform = await openPlatform(config, "edge-test");
  const started = await startEdge(platform);
  stops.push(async () => {
    await started.stop();
    await platform.close();
  });
  const jsm = await jetstreamManager(platform.nc);
  return {
    platform,
    url: started.url,
    viewConsumers: async (lists) => (await jsm.consumers.list(`KV_${config.WF_NAMESPACE}_${lists}_idx`).next()).length,
  };
}

describe("the list views of an edge", () => {
  it("are built by the first list of each, which then answers, or with WF_LIST_VIEW_AT_START=1 once the edge serves", async () => {
    // Started side by side: by the time the eager one follows its indexes, the other would too.
    const [eager, lazy] = await Promise.all([edge("1"), edge("0")]);
    for (const lists of ["executions", "approvals"] as const)
      await waitFor(async () => (await eager.viewConsumers(lists)) === 1, {
        what: `the eager edge's ${lists} view to follow its index`,
      });
    expect([await lazy.viewConsumers("executions"), await lazy.viewConsumers("approvals")]).toEqual([0, 0]);

    const user = testUser();
    await lazy.platform.store.users.create(user);
    const { key } = await createApiKey(lazy.platform.store, { ownerId: user.id, scopes: ALL_SCOPES, expiresAt: null });
    for (const lists of ["executions", "approvals"] as const) {
      const res = await fetch(`${lazy.url}/api/v1/${lists}`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      // The API names each list's items after what they are (spec: `approvals` for approvals).
      expect(await res.json()).toMatchObject({ total: 0, [lists === "executions" ? "items" : "approvals"]: [] });
      expect(await lazy.viewConsumers(lists)).toBe(1);
    }
  });
});
