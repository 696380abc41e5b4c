import { describe, expect, it } from "vitest";
import { ensureStreams, streamNames } from "@wf/shared/nats";
import { account, call, SIMPLE_YAML, storeWorkflow, useApi } from "./support";

const api = useApi();

const OBJECT_VARIABLE_YAML = `
name: nested
variables:
  meta: { type: object, default: {} }
steps:
  - { name: a, type: transform, output: "{{ vars.meta }}" }
`;

/** JSON text of an object `levels` deep: `{"a":{"a":{}}}` is 3. */
function nestedObject(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;
}

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

  it("answers 400 for a body nested more than 64 levels deep, naming the input; 64 levels are accepted", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, OBJECT_VARIABLE_YAML);
    const url = `/api/v1/workflows/${w.id}/executions`;
    // The body is level 1, `inputs` level 2: `meta` may nest 62 more.
    const deepest = await call(api(), "POST", url, { key: me.key, body: `{"inputs": {"meta": ${nestedObject(62)}}}` });
    expect(deepest.statusCode).toBe(202);
    for (const levels of [63, 5_000, 100_000]) {
      const r = await call(api(), "POST", url, { key: me.key, body: `{"inputs": {"meta": ${nestedObject(levels)}}}` });
      expect(r.statusCode, `${levels} levels`).toBe(400);
      expect(r.json()).toEqual({
        error: expect.stringContaining("more than 64 levels deep"),
        details: [{ in: "body", field: "inputs.meta", message: expect.stringContaining("flatten it") }],
      });
    }
    const arrays = await call(api(), "POST", url, { key: me.key, body: `{"inputs": {"meta": {"list": ${"[".repeat(5_000)}${"]".repeat(5_000)}}}}` });
    expect(arrays.statusCode).toBe(400);
    expect(arrays.json().details).toEqual([{ in: "body", field: "inputs.meta", message: expect.any(String) }]);
    expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 5 })).total).toBe(1);
  });

  it("answers 400 for a JSON null body, while a missing body is {}", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
    const url = `/api/v1/workflows/${w.id}/executions`;
    const nullBody = await call(api(), "POST", url, { key: me.key, body: "null" });
    expect(nullBody.statusCode).toBe(400);
    expect(nullBody.json()).toEqual({ error: expect.any(String), details: [{ in: "body", field: "", message: "the body must be a JSON object" }] });
    expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 5 })).total).toBe(0);
    const missing = await call(api(), "POST", url, { key: me.key });
    expect(missing.statusCode).toBe(202);
    const empty = await call(api(), "POST", url, { key: me.key, body: "", headers: { "content-type": "application/json" } });
    expect(empty.statusCode).toBe(202);
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
