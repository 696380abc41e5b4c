import { describe, expect, it } from "vitest";
import { minuteWithRoom, waitFor } from "@wf/testing";
import { createApiKey } from "@wf/shared/auth";
import { consoleCall, consoleOwner, hmacHex, request, storeWorkflow, useWebhookEdge, type WebhookEnv } from "./support";

const edge = useWebhookEdge();
const SECRET = "a shared secret of some length";

async function webhook(env: WebhookEnv, fields: Record<string, unknown> = {}) {
  const o = await consoleOwner(env);
  const wf = await storeWorkflow(env, o.user.id);
  const r = await consoleCall(env, o.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "hook", ...fields });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { owner: o, workflow: wf, id: r.body.id as string, view: r.body };
}

const trigger = (
  env: WebhookEnv,
  id: string,
  body?: string,
  headers: Record<string, string> = {},
  host?: "127.0.0.1" | "[::1]",
) =>
  request(env, "POST", `/api/webhooks/${id}/trigger`, {
    ...(body === undefined ? {} : { body }),
    headers,
    ...(host ? { host } : {}),
  });

/** An answer's status and the catalogue code its body carries. */
const answer = (r: { status: number; body: Record<string, unknown> }) => [r.status, r.body.code];

async function inputsOf(env: WebhookEnv, executionId: string) {
  const snapshot = await env.platform.store.executions.get(executionId);
  expect(snapshot).not.toBeNull();
  return snapshot!.value;
}

describe("webhook trigger: modes", () => {
  it("open mode: 202 with the execution already stored PENDING, triggerSource webhook", async () => {
    const env = edge();
    const { id, workflow } = await webhook(env);
    const r = await trigger(env, id, JSON.stringify({ who: "Ada" }));
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ webhookId: id, workflowId: workflow.id, status: "PENDING" });
    const snapshot = await inputsOf(env, r.body.executionId as string);
    expect(snapshot.triggerSource).toBe("webhook");
    expect(snapshot.status).toBe("PENDING");
  });

  it("HMAC mode: the signature is over the exact bytes, with or without sha256=", async () => {
    const env = edge();
    const { id } = await webhook(env, { secretKey: SECRET });
    const raw = '{ "who" :  "Ada",\n "n": 2 }';
    expect((await trigger(env, id, raw, { "x-webhook-signature": hmacHex(SECRET, raw) })).status).toBe(202);
    expect((await trigger(env, id, raw, { "x-webhook-signature": `sha256=${hmacHex(SECRET, raw)}` })).status).toBe(202);
    const reserialised = JSON.stringify(JSON.parse(raw));
    expect((await trigger(env, id, raw, { "x-webhook-signature": hmacHex(SECRET, reserialised) })).status).toBe(401);
    expect((await trigger(env, id, raw)).status).toBe(401);
    expect(
      (await trigger(env, id, raw, { "x-webhook-signature": hmacHex("another secret entirely", raw) })).status,
    ).toBe(401);
  });

  it("API-key mode: only the bound key with WEBHOOK_TRIGGER; HMAC is ignored even with a secret", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const created = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "k",
      apiKeyId: o.keyId,
      secretKey: SECRET,
    });
    expect(created.body).toMatchObject({ mode: "api_key", hasSecret: true });
    expect(created.body).not.toHaveProperty("secretKey");
    const id = created.body.id as string;
    const body = "{}";
    expect((await trigger(env, id, body, { authorization: `Bearer ${o.key}` })).status).toBe(202);
    expect((await trigger(env, id, body, { "x-webhook-signature": hmacHex(SECRET, body) })).status).toBe(401);
    const other = await createApiKey(env.platform.store, { ownerId: o.user.id, scopes: ["WEBHOOK_TRIGGER"] });
    expect((await trigger(env, id, body, { authorization: `Bearer ${other.key}` })).status).toBe(401);
    // A key lacking WEBHOOK_TRIGGER, or expired, is refused as the webhook's key: no trigger could pass with it.
    const unscoped = await createApiKey(env.platform.store, { ownerId: o.user.id, scopes: ["WORKFLOW_READ"] });
    const expired = await createApiKey(
      env.platform.store,
      { ownerId: o.user.id, scopes: ["WEBHOOK_TRIGGER"], expiresAt: Date.now() - 1 },
      Date.now() - 60_000,
    );
    for (const [key, message] of [
      [unscoped, /lacks the WEBHOOK_TRIGGER scope/],
      [expired, /has expired/],
    ] as const) {
      const rebind = await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { apiKeyId: key.record.id });
      expect(rebind.status).toBe(400);
      expect(rebind.body.details).toEqual([{ in: "body", field: "apiKeyId", message: expect.stringMatching(message) }]);
    }
    // Bound all the same (written to the store), the key without the scope triggers nothing.
    const stored = (await env.platform.store.webhooks.get(id))!;
    await env.platform.store.webhooks.update({ ...stored.value, apiKeyId: unscoped.record.id }, stored.version);
    expect((await trigger(env, id, body, { "x-api-key": unscoped.key })).status).toBe(401);
  });
});

describe("webhook trigger: rules", () => {
  it("order of checks: 404 → 409 → 413 → 401 → 403 → 400, each answer with its code", async () => {
    const env = edge();
    const big = JSON.stringify({ pad: "x".repeat(1024 * 1024) });
    expect(answer(await trigger(env, "no-such-webhook", big))).toEqual([404, "NOT_FOUND"]);
    const { id, owner: o } = await webhook(env, { secretKey: SECRET, allowedSourceIps: ["10.0.0.0/8"] });
    expect(answer(await trigger(env, id, big))).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(answer(await trigger(env, id, "not json"))).toEqual([401, "UNAUTHORIZED"]);
    expect(answer(await trigger(env, id, "not json", { "x-webhook-signature": hmacHex(SECRET, "not json") }))).toEqual([
      403,
      "SOURCE_NOT_ALLOWED",
    ]);
    expect((await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { allowedSourceIps: [] })).status).toBe(
      200,
    );
    const bad = await trigger(env, id, "not json", { "x-webhook-signature": hmacHex(SECRET, "not json") });
    expect(answer(bad)).toEqual([400, "VALIDATION_FAILED"]);
    const array = await trigger(env, id, "[1]", { "x-webhook-signature": hmacHex(SECRET, "[1]") });
    expect(answer(array)).toEqual([400, "VALIDATION_FAILED"]);
    expect((await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { enabled: false })).status).toBe(200);
    expect(answer(await trigger(env, id, big))).toEqual([409, "CONFLICT"]);
  });

  it("a trigger refused once counted (403, 400) carries the X-RateLimit headers and counts; one refused before does not", async () => {
    const env = edge();
    const { id, owner: o } = await webhook(env, { allowedSourceIps: ["10.0.0.0/8"] });
    await minuteWithRoom(10_000);
    const remaining = (r: Awaited<ReturnType<typeof trigger>>) =>
      [r.status, r.headers.get("x-ratelimit-limit"), r.headers.get("x-ratelimit-window")].concat(
        r.headers.get("x-ratelimit-remaining") ?? "none",
      );
    expect(remaining(await trigger(env, id, "{}"))).toEqual([403, "300", "minute", "299"]);
    expect((await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { allowedSourceIps: [] })).status).toBe(
      200,
    );
    expect(remaining(await trigger(env, id, "not json"))).toEqual([400, "300", "minute", "298"]);
    // Too large: refused before it is authenticated, so neither counted nor told.
    const big = JSON.stringify({ pad: "x".repeat(1024 * 1024) });
    expect(remaining(await trigger(env, id, big))).toEqual([413, null, null, "none"]);
    expect(remaining(await trigger(env, id, "{}"))).toEqual([202, "300", "minute", "297"]);
  });

  it("an empty body is {} and the legacy path behaves the same", async () => {
    const env = edge();
    const { id } = await webhook(env);
    const r = await request(env, "POST", `/api/webhook-trigger/${id}`);
    expect(r.status).toBe(202);
    expect(r.body.webhookId).toBe(id);
    expect((await request(env, "POST", `/api/webhook-trigger/${id}`, { body: "nope" })).status).toBe(400);
    expect((await request(env, "POST", "/api/webhook-trigger/missing", { body: "{}" })).status).toBe(404);
  });

  it("a payload nested more than 64 levels deep is a 400 naming its field, mapped or not; 64 levels pass", async () => {
    const env = edge();
    const { id } = await webhook(env, { variableMapping: { who: "deep" } });
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;
    for (const field of ["deep", "ignored"]) {
      const r = await trigger(env, id, `{"${field}": ${nested(5_000)}}`);
      expect(r.status, field).toBe(400);
      expect(r.body).toEqual({
        error: expect.stringContaining("more than 64 levels deep"),
        code: "VALIDATION_FAILED",
        details: [{ in: "body", field: `${field}.a`, message: expect.any(String) }],
      });
    }
    // The body is level 1: a field may nest 63 more.
    const deepest = await trigger(env, id, `{"ignored": ${nested(63)}}`);
    expect(deepest.status).toBe(202);
    expect((await trigger(env, id, `{"ignored": ${nested(64)}}`)).status).toBe(400);
  });

  it("a payload whose inputs leave the execution's record no room for its steps is a 413 naming them", async () => {
    const env = edge();
    const { id, workflow } = await webhook(env);
    const r = await trigger(env, id, JSON.stringify({ who: "y".repeat(700 * 1024) }));
    expect(answer(r)).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(r.body.error).toMatch(/^inputs: the execution would start with \d+ bytes in its record, over the 630784/);
    const page = await env.platform.store.executions.list({ ownerId: workflow.ownerId, page: 1, size: 5 });
    expect(page.total).toBe(0);
  });

  it("two identical payloads create two executions", async () => {
    const env = edge();
    const { id } = await webhook(env);
    const a = await trigger(env, id, '{"who":"x"}');
    const b = await trigger(env, id, '{"who":"x"}');
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.executionId).not.toBe(b.body.executionId);
  });

  it("default mapping: top-level scalars naming variables; nested and unknown fields are left out", async () => {
    const env = edge();
    const { id } = await webhook(env);
    const r = await trigger(
      env,
      id,
      JSON.stringify({ who: "Ada", n: 5, flag: true, extra: "x", nested: { who: "no" } }),
    );
    expect(r.status).toBe(202);
    const snapshot = await inputsOf(env, r.body.executionId as string);
    expect(snapshot.vars).toEqual({ who: "Ada", n: 5, flag: true });
  });

  it("explicit mapping: variable <- field; a missing field keeps the default", async () => {
    const env = edge();
    const { id } = await webhook(env, { variableMapping: { who: "user", n: "count" } });
    const r = await trigger(env, id, JSON.stringify({ user: "Grace", who: "ignored" }));
    expect(r.status).toBe(202);
    const snapshot = await inputsOf(env, r.body.executionId as string);
    expect(snapshot.vars).toEqual({ who: "Grace", n: 1, flag: false });
  });

  it("source allow-list with IPv4 and IPv6 CIDR ranges", async () => {
    const env = edge();
    const { id: v4 } = await webhook(env, { allowedSourceIps: ["127.0.0.0/8"] });
    expect((await trigger(env, v4, "{}", {}, "127.0.0.1")).status).toBe(202);
    expect((await trigger(env, v4, "{}", {}, "[::1]")).status).toBe(403);
    const { id: v6 } = await webhook(env, { allowedSourceIps: ["::1/128", "2001:db8::/32"] });
    expect((await trigger(env, v6, "{}", {}, "[::1]")).status).toBe(202);
    expect((await trigger(env, v6, "{}", {}, "127.0.0.1")).status).toBe(403);
    // X-Forwarded-For is not believed without WF_TRUSTED_PROXIES.
    expect((await trigger(env, v6, "{}", { "x-forwarded-for": "::1" }, "127.0.0.1")).status).toBe(403);
  });

  it("a Free owner gets 403 naming the plan", async () => {
    const env = edge();
    const { id, owner: o } = await webhook(env);
    await env.platform.store.users.update(
      { ...o.user, plan: "free" },
      (await env.platform.store.users.get(o.user.id))!.version,
    );
    const r = await trigger(env, id, "{}");
    expect(answer(r)).toEqual([403, "PLAN_LIMIT"]);
    expect(r.body.error).toMatch(/free/);
  });

  it("HMAC and open triggers count against the owner's plan keyed by the webhook: the 301st in a minute on Pro is 429", async () => {
    const env = edge();
    const { id, owner: o } = await webhook(env);
    const second = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: (await storeWorkflow(env, o.user.id)).id,
      name: "other",
    });
    // Fixed epoch-minute windows: start where 301 requests cannot straddle a boundary.
    await minuteWithRoom(20_000);
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await trigger(env, id, "{}")).status);
    expect(statuses.every((s) => s === 202)).toBe(true);
    const limited = await trigger(env, id, "{}");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("300");
    expect(limited.headers.get("x-ratelimit-window")).toBe("minute");
    expect(limited.body).toMatchObject({ code: "RATE_LIMITED", window: "minute", limit: 300 });
    expect(limited.body.retryAfterSeconds).toBeGreaterThan(0);
    expect((await trigger(env, second.body.id as string, "{}")).status).toBe(202);
  });

  it("API-key triggers count against the bound key's own quota, shared with its v1 requests", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const created = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "k",
      apiKeyId: o.keyId,
    });
    const id = created.body.id as string;
    await minuteWithRoom(20_000);
    const auth = { authorization: `Bearer ${o.key}` };
    const first = await request(env, "GET", "/api/v1/workflows", { headers: auth });
    expect(first.headers.get("x-ratelimit-remaining")).toBe("299");
    for (let i = 0; i < 299; i++) expect((await trigger(env, id, "{}", auth)).status).toBe(202);
    const limited = await trigger(env, id, "{}", auth);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ window: "minute", limit: 300 });
    // Another key of the same owner has its own quota.
    const other = await createApiKey(env.platform.store, { ownerId: o.user.id, scopes: ["WORKFLOW_READ"] });
    expect(
      (await request(env, "GET", "/api/v1/workflows", { headers: { authorization: `Bearer ${other.key}` } })).status,
    ).toBe(200);
  });

  it("Standard Webhooks replay protection: a signed id is accepted once, stale timestamps never", async () => {
    const env = edge();
    const { id } = await webhook(env, { secretKey: SECRET, replayProtection: true });
    const { createHmac } = await import("node:crypto");
    const sign = (msgId: string, ts: number, body: string) =>
      `v1,${createHmac("sha256", SECRET).update(`${msgId}.${ts}.${body}`).digest("base64")}`;
    const now = Math.floor(Date.now() / 1000);
    const headers = (msgId: string, ts: number, body: string) => ({
      "webhook-id": msgId,
      "webhook-timestamp": String(ts),
      "webhook-signature": sign(msgId, ts, body),
    });
    expect((await trigger(env, id, "{}", headers("msg_1", now, "{}"))).status).toBe(202);
    expect((await trigger(env, id, "{}", headers("msg_1", now, "{}"))).status).toBe(401);
    expect((await trigger(env, id, "{}", headers("msg_2", now - 600, "{}"))).status).toBe(401);
    expect((await trigger(env, id, "{}", { "x-webhook-signature": hmacHex(SECRET, "{}") })).status).toBe(401);
  });

  it("stats count accepted and rejected answers", async () => {
    const env = edge();
    const { id, owner: o } = await webhook(env, { secretKey: SECRET });
    await trigger(env, id, "{}", { "x-webhook-signature": hmacHex(SECRET, "{}") });
    await trigger(env, id, "{}");
    const stats = await waitFor(async () => {
      const r = await consoleCall(env, o.session, "GET", `/api/webhooks/${id}/stats`);
      return r.body.total === 2 ? r.body : undefined;
    });
    expect(stats).toMatchObject({ webhookId: id, total: 2, accepted: 1, rejected: { "401": 1 } });
    expect(typeof stats.lastTriggeredAt).toBe("number");
  });

  it("stats keep the latest refusal of each status with its reason: a missing required variable is named", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(
      env,
      o.user.id,
      'name: required\nvariables:\n  who: { type: string, required: true }\nsteps:\n  - { name: greet, type: transform, output: "{{ vars.who }}" }\n',
    );
    const created = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "hook",
      secretKey: SECRET,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await trigger(env, id, "{}", { "x-webhook-signature": hmacHex(SECRET, "{}") })).status).toBe(400);
    expect((await trigger(env, id, "{}")).status).toBe(401);
    const stats = await waitFor(async () => {
      const r = await consoleCall(env, o.session, "GET", `/api/webhooks/${id}/stats`);
      return r.body.total === 2 ? r.body : undefined;
    });
    expect(stats).toMatchObject({
      rejected: { "400": 1, "401": 1 },
      lastRefusals: {
        "400": {
          message: expect.stringContaining("required variable `who` (string) is missing"),
          at: expect.any(Number),
        },
        "401": { message: expect.stringContaining("credentials are missing or wrong"), at: expect.any(Number) },
      },
    });
  });
});

describe("trusted proxies", () => {
  const proxied = useWebhookEdge({ WF_TRUSTED_PROXIES: "loopback" });

  it("X-Forwarded-For from a trusted proxy decides the source address", async () => {
    const env = proxied();
    const { id } = await webhook(env, { allowedSourceIps: ["203.0.113.0/24"] });
    expect((await trigger(env, id, "{}", { "x-forwarded-for": "203.0.113.7" })).status).toBe(202);
    expect((await trigger(env, id, "{}", { "x-forwarded-for": "198.51.100.1" })).status).toBe(403);
    expect((await trigger(env, id, "{}")).status).toBe(403);
  });
});
