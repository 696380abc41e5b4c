import { describe, expect, it } from "vitest";
import { ensureStreams, streamNames } from "@wf/shared/nats";
import { account, call, SIMPLE_YAML, storeWorkflow, useApi } from "./support";

const api = useApi();

describe("request bodies", () => {
  it("answers 413 for a body over 1 MB, before anything is read or written", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
    const big = JSON.stringify({ inputs: { who: "x".repeat(1024 * 1024) } });
    const r = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key, body: big });
    expect(r.statusCode).toBe(413);
    expect(r.json()).toEqual({ error: expect.stringContaining("1 MB") });
    expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 5 })).total).toBe(0);
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "application/xml"])("answers 415 for a %s body", async (type) => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
    const r = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key, body: "who=x", headers: { "content-type": type } });
    expect(r.statusCode).toBe(415);
    expect(r.json()).toEqual({ error: expect.stringContaining("application/json") });
  });

  it("answers 400 for invalid JSON, and accepts application/json with a charset", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
    const url = `/api/v1/workflows/${w.id}/executions`;
    const bad = await call(api(), "POST", url, { key: me.key, body: '{"inputs": {' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: expect.stringContaining("invalid JSON"), details: [{ in: "body", field: "" }] });
    const poisoned = await call(api(), "POST", url, { key: me.key, body: '{"inputs": {"__proto__": {"x": 1}}}' });
    expect(poisoned.statusCode).toBe(400);
    const ok = await call(api(), "POST", url, { key: me.key, body: { inputs: { who: "x" } }, headers: { "content-type": "application/json; charset=utf-8" } });
    expect(ok.statusCode).toBe(202);
  });

  it("authenticates before it reads a body: no key and a bad body is a 401", async () => {
    const r = await call(api(), "POST", "/api/v1/workflows/x/executions", { body: "{not json" });
    expect(r.statusCode).toBe(401);
  });

  it("answers unknown routes with 404 in the error shape", async () => {
    const r = await call(api(), "GET", "/api/v1/nothing-here");
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ error: "no route GET /api/v1/nothing-here" });
  });
});

describe("a start whose command cannot be published", () => {
  it("answers 503 and leaves no execution behind", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
    const { jsm } = api().platform;
    await jsm.streams.delete(streamNames(api().ns).cmd);
    try {
      const r = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({ error: expect.any(String) });
      expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 5 })).total).toBe(0);
    } finally {
      await ensureStreams(jsm, api().ns, { eventsMaxAgeMs: 3_600_000 });
    }
  });
});
