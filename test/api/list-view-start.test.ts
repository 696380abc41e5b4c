import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEdge } from "@wf/edge";
import { createApiKey } from "@wf/shared/auth";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { startNatsServer, testUser, waitFor, type NatsServerHandle } from "@wf/testing";
import { testConfig } from "../support/runtime";
import { ALL_SCOPES } from "./support";

/**
 * When an edge builds its view of the execution lists (WF_LIST_VIEW_AT_START): the view is one
 * consumer of the executions' index bucket, so its presence on the server tells.
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

async function edge(atStart: "0" | "1"): Promise<{ platform: Platform; url: string; viewConsumers(): Promise<number> }> {
  const config = testConfig(server, { WF_LIST_VIEW_AT_START: atStart, PORT: "0", HOST: "127.0.0.1" });
  const platform = await openPlatform(config, "edge-test");
  const started = await startEdge(platform);
  stops.push(async () => {
    await started.stop();
    await platform.close();
  });
  const jsm = await jetstreamManager(platform.nc);
  const stream = `KV_${config.WF_NAMESPACE}_executions_idx`;
  return { platform, url: started.url, viewConsumers: async () => (await jsm.consumers.list(stream).next()).length };
}

describe("the execution lists' view of an edge", () => {
  it("is built by the first list, which then answers, or with WF_LIST_VIEW_AT_START=1 once the edge serves", async () => {
    // Started side by side: by the time the eager one follows its index, the other would too.
    const [eager, lazy] = await Promise.all([edge("1"), edge("0")]);
    await waitFor(async () => (await eager.viewConsumers()) === 1, { what: "the eager edge's view to follow its index" });
    expect(await lazy.viewConsumers()).toBe(0);

    const user = testUser();
    await lazy.platform.store.users.create(user);
    const { key } = await createApiKey(lazy.platform.store, { ownerId: user.id, scopes: ALL_SCOPES, expiresAt: null });
    const res = await fetch(`${lazy.url}/api/v1/executions`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ total: 0, items: [] });
    expect(await lazy.viewConsumers()).toBe(1);
  });
});
