import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { ensureStreams, ONE_REPLICA, streamNames } from "@wf/shared/nats";
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
    expect(r.json()).toEqual({ error: expect.stringContaining("1 MB"), code: "PAYLOAD_TOO_LARGE" });
    expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 5 })).total).toBe(0);
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "application/xml"])(
    "answers 415 for a %s body",
    async (type) => {
      const me = await account(api());
      const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
      const r = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, {
        key: me.key,
        body: "who=x",
        headers: { "content-type": type },
      });
      expect(r.statusCode).toBe(415);
      expect(r.json()).toEqual({ error: expect.stringContaining("application/json"), code: "UNSUPPORTED_MEDIA_TYPE" });
    },
  );

  it("answers 400 for invalid JSON, and accepts application/json with a charset", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
    const url = `/api/v1/workflows/${w.id}/executions`;
    const bad = await call(api(), "POST", url, { key: me.key, body: '{"inputs": {' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      error: expect.stringContaining("invalid JSON"),
      code: "VALIDATION_FAILED",
      details: [{ in: "body", field: "" }],
    });
    const poisoned = await call(api(), "POST", url, { key: me.key, body: '{"inputs": {"__proto__": {"x": 1}}}' });
    expect(poisoned.statusCode).toBe(400);
    const ok = await call(api(), "POST", url, {
      key: me.key,
      body: { inputs: { who: "x" } },
      headers: { "content-type": "application/json; charset=utf-8" },
    });
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
        code: "VALIDATION_FAILED",
        details: [{ in: "body", field: "inputs.meta", message: expect.stringContaining("flatten it") }],
      });
    }
    const arrays = await call(api(), "POST", url, {
      key: me.key,
      body: `{"inputs": {"meta": {"list": ${"[".repeat(5_000)}${"]".repeat(5_000)}}}}`,
    });
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
    expect(nullBody.json()).toEqual({
      error: expect.any(String),
      code: "VALIDATION_FAILED",
      details: [{ in: "body", field: "", message: "the body must be a JSON object" }],
    });
    expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 5 })).total).toBe(0);
    const missing = await call(api(), "POST", url, { key: me.key });
    expect(missing.statusCode).toBe(202);
    const empty = await call(api(), "POST", url, {
      key: me.key,
      body: "",
      headers: { "content-type": "application/json" },
    });
    expect(empty.statusCode).toBe(202);
  });

  it("authenticates before it reads a body: no key and a bad body is a 401", async () => {
    const r = await call(api(), "POST", "/api/v1/workflows/x/executions", { body: "{not json" });
    expect(r.statusCode).toBe(401);
  });

  it("answers unknown routes with 404 in the error shape", async () => {
    const r = await call(api(), "GET", "/api/v1/nothing-here");
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ error: "no route GET /api/v1/nothing-here", code: "NOT_FOUND" });
  });
});

/** Writes raw bytes to the listening edge and reads what it answers before closing the connection. */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(bytes));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("error codes", () => {
  it("two 403s carry different codes: a viewer's FORBIDDEN and an inactive account's ACCOUNT_INACTIVE", async () => {
    const owner = await account(api());
    const viewer = await account(api());
    const inactive = await account(api(), { status: "deactivated" });
    const w = await storeWorkflow(api(), owner.user.id, SIMPLE_YAML, { sharedWith: { [viewer.user.id]: "viewer" } });
    const url = `/api/v1/workflows/${w.id}/executions`;
    const [onlyViewer, deactivated] = [
      await call(api(), "POST", url, { key: viewer.key }),
      await call(api(), "POST", url, { key: inactive.key }),
    ];
    expect([onlyViewer.statusCode, deactivated.statusCode]).toEqual([403, 403]);
    expect(onlyViewer.json()).toEqual({ error: expect.stringContaining("viewer"), code: "FORBIDDEN" });
    expect(deactivated.json()).toEqual({ error: expect.stringContaining("deactivated"), code: "ACCOUNT_INACTIVE" });
  });

  it("a validation 400 names its fields; an id too long for the router's limit is a 400 too, a longer path segment a 414", async () => {
    const me = await account(api());
    const list = await call(api(), "GET", "/api/v1/workflows?size=0", { key: me.key });
    expect(list.statusCode).toBe(400);
    expect(list.json()).toEqual({
      error: expect.stringContaining("size"),
      code: "VALIDATION_FAILED",
      details: [{ in: "query", field: "size", message: expect.any(String) }],
    });
    // Ids have at most 128 characters: one of 300 reaches the schema, which names the field.
    const long = await call(api(), "GET", `/api/v1/workflows/${"x".repeat(300)}`, { key: me.key });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual({
      error: expect.any(String),
      code: "VALIDATION_FAILED",
      details: [{ in: "path", field: "id", message: expect.any(String) }],
    });
    const tooLong = await call(api(), "GET", `/api/v1/workflows/${"x".repeat(600)}`, { key: me.key });
    expect(tooLong.statusCode).toBe(414);
    expect(tooLong.json()).toEqual({ error: expect.any(String), code: "VALIDATION_FAILED" });
  });

  it("a repeated query parameter, and a path with an empty segment, are 400s that say so", async () => {
    const me = await account(api());
    const repeated = await call(api(), "GET", "/api/v1/workflows?size=2&size=3", { key: me.key });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().details).toEqual([
      { in: "query", field: "size", message: "given more than once: send it once" },
    ]);
    const trailing = await call(api(), "GET", "/api/v1/workflows/", { key: me.key });
    expect(trailing.statusCode).toBe(400);
    expect(trailing.json().details).toEqual([
      {
        in: "path",
        field: "id",
        message: "must not be empty: the path has an empty segment there (a trailing / or a //)",
      },
    ]);
  });

  it("a query field a route does not take is a 400 naming it, on routes that take no query too; api_key is a credential", async () => {
    const me = await account(api());
    const workflow = await storeWorkflow(api(), me.user.id, SIMPLE_YAML);
    const unknown = await call(api(), "GET", `/api/v1/workflows/${workflow.id}?foo=1`, { key: me.key });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details).toEqual([{ in: "query", field: "foo", message: "unknown field" }]);
    const byQueryKey = await call(
      api(),
      "GET",
      `/api/v1/workflows/${workflow.id}?api_key=${encodeURIComponent(me.key)}`,
    );
    expect(byQueryKey.statusCode).toBe(200);
  });

  it("a path that is not valid percent-encoding is a 400 VALIDATION_FAILED from the router, its URL not echoed", async () => {
    const r = await call(api(), "GET", "/api/v1/workflows/%E0%A4%A?api_key=wfk_not_to_be_echoed");
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({
      error: expect.stringContaining("not valid percent-encoding"),
      code: "VALIDATION_FAILED",
      details: [{ in: "path", field: "", message: expect.any(String) }],
    });
    expect(r.body).not.toContain("wfk_not_to_be_echoed");
    expect(r.body).not.toContain("%E0");
  });

  it("an unexpected failure is a 500 INTERNAL that says nothing more", async () => {
    const me = await account(api());
    const workflows = api().platform.store.workflows;
    const listVisible = workflows.listVisible.bind(workflows);
    workflows.listVisible = () => Promise.reject(new Error("a secret detail of the failure"));
    try {
      const r = await call(api(), "GET", "/api/v1/workflows", { key: me.key });
      expect(r.statusCode).toBe(500);
      expect(r.json()).toEqual({ error: "internal error", code: "INTERNAL" });
    } finally {
      workflows.listVisible = listVisible;
    }
  });

  it("requests the HTTP parser refuses are answered in the error shape too", async () => {
    await api().app.listen({ port: 0, host: "127.0.0.1" });
    const address = api().app.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const malformed = await rawRequest(address.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n");
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(malformed.slice(malformed.indexOf("\r\n\r\n") + 4))).toMatchObject({
      error: expect.any(String),
      code: "VALIDATION_FAILED",
    });
    const huge = await rawRequest(
      address.port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${"x".repeat(20_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf("\r\n\r\n") + 4))).toEqual({
      error: expect.any(String),
      code: "VALIDATION_FAILED",
    });
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
      expect(r.json()).toEqual({ error: expect.any(String), code: "UNAVAILABLE" });
      expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 5 })).total).toBe(0);
    } finally {
      await ensureStreams(jsm, api().ns, { eventsMaxAgeMs: 3_600_000, placement: ONE_REPLICA });
    }
  });
});
