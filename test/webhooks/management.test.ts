import { describe, expect, it } from "vitest";
import { createApiKey } from "@wf/shared/auth";
import { buildEdge } from "@wf/edge";
import { openPlatform } from "@wf/shared/runtime";
import { waitFor } from "@wf/testing";
import { consoleCall, consoleOwner, hmacHex, loginUser, request, storeWorkflow, useWebhookEdge } from "./support";

const edge = useWebhookEdge();

/** An answer's status and the catalogue code its body carries. */
const answer = (r: { status: number; body: Record<string, unknown> }) => [r.status, r.body.code];

describe("console sessions", () => {
  it("login sets an HttpOnly SameSite=Lax cookie; wrong passwords and unknown emails get the same 401", async () => {
    const env = edge();
    const { user, password } = await loginUser(env, "pro");
    const r = await request(env, "POST", "/api/console/login", {
      body: JSON.stringify({ email: user.email.toUpperCase(), password }),
    });
    expect(r.status).toBe(200);
    expect(typeof r.body.csrfToken).toBe("string");
    const cookie = r.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const wrong = await request(env, "POST", "/api/console/login", {
      body: JSON.stringify({ email: user.email, password: "not the password" }),
    });
    const unknown = await request(env, "POST", "/api/console/login", {
      body: JSON.stringify({ email: "nobody@example.com", password }),
    });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.code).toBe("LOGIN_FAILED");
  });

  it("management needs the session cookie (not an API key) and, to change things, the CSRF token", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    expect(answer(await request(env, "GET", "/api/webhooks"))).toEqual([401, "SESSION_REQUIRED"]);
    expect(
      answer(await request(env, "GET", "/api/webhooks", { headers: { authorization: `Bearer ${o.key}` } })),
    ).toEqual([401, "SESSION_REQUIRED"]);
    expect(
      answer(await consoleCall(env, o.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "x" }, false)),
    ).toEqual([403, "CSRF_FAILED"]);
    expect(
      answer(
        await consoleCall(env, { ...o.session, csrf: "forged" }, "POST", "/api/webhooks", {
          workflowId: wf.id,
          name: "x",
        }),
      ),
    ).toEqual([403, "CSRF_FAILED"]);
    expect((await consoleCall(env, o.session, "GET", "/api/webhooks", undefined, false)).status).toBe(200);
  });

  it("sessions are stored: another edge on the same store accepts them; logout ends them", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const other = await buildEdge(env.platform);
    try {
      const r = await other.inject({ method: "GET", url: "/api/webhooks", headers: { cookie: o.session.cookie } });
      expect(r.statusCode).toBe(200);
    } finally {
      await other.close();
    }
    expect((await consoleCall(env, o.session, "POST", "/api/console/logout")).status).toBe(204);
    expect((await consoleCall(env, o.session, "GET", "/api/webhooks")).status).toBe(401);
  });
});

describe("webhook management", () => {
  it("a webhook disabled by PUT answers 409 at once on that edge, and on another replica within a bounded delay", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const id = (await consoleCall(env, o.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "open" })).body
      .id as string;
    // A replica: its own process state (connection, store, memory of records) on the same NATS.
    const replicaPlatform = await openPlatform(env.platform.config, "webhook-replica");
    const replica = await buildEdge(replicaPlatform);
    try {
      const trigger = async (app: typeof replica) =>
        (await app.inject({ method: "POST", url: `/api/webhooks/${id}/trigger`, payload: {} })).statusCode;
      // Several triggers each, so that both edges serve the webhook from memory by now.
      for (let i = 0; i < 3; i++) expect([await trigger(env.app), await trigger(replica)]).toEqual([202, 202]);
      expect((await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { enabled: false })).status).toBe(200);
      expect(await trigger(env.app)).toBe(409);
      await waitFor(async () => (await trigger(replica)) === 409, { what: "the replica to see the webhook disabled" });
      expect((await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { enabled: true })).status).toBe(200);
      expect(await trigger(env.app)).toBe(202);
      await waitFor(async () => (await trigger(replica)) === 202, {
        what: "the replica to see the webhook enabled again",
      });
    } finally {
      await replica.close();
      await replicaPlatform.close();
    }
  });

  it("CRUD: 201, list, merge on PUT, 204 on DELETE; the secret is never returned", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const created = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "first",
      secretKey: "sixteen chars min!!",
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({
      workflowId: wf.id,
      name: "first",
      mode: "hmac",
      apiKeyId: null,
      hasSecret: true,
      variableMapping: null,
      allowedSourceIps: [],
      enabled: true,
      triggerUrl: `/api/webhooks/${id}/trigger`,
    });
    expect(JSON.stringify(created.body)).not.toContain("sixteen");
    const stored = await env.platform.store.webhooks.get(id);
    expect(stored!.value.secretKey).not.toContain("sixteen");

    const updated = await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, {
      name: "renamed",
      allowedSourceIps: ["10.0.0.0/8", "::1"],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: "renamed",
      mode: "hmac",
      hasSecret: true,
      allowedSourceIps: ["10.0.0.0/8", "::1"],
    });

    const list = await consoleCall(env, o.session, "GET", "/api/webhooks");
    expect(list.body).toMatchObject({ total: 1, page: 1 });
    expect((await consoleCall(env, o.session, "GET", `/api/webhooks/${id}`)).body.name).toBe("renamed");

    expect((await consoleCall(env, o.session, "DELETE", `/api/webhooks/${id}`)).status).toBe(204);
    expect((await consoleCall(env, o.session, "GET", `/api/webhooks/${id}`)).status).toBe(404);
  });

  it("binding a key, and back to HMAC only with clearApiKeyId and the secret re-sent", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const secret = "the old shared secret";
    const { body } = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "k",
      apiKeyId: o.keyId,
      secretKey: secret,
    });
    const id = body.id as string;
    expect(body.mode).toBe("api_key");
    expect((await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { clearApiKeyId: true })).status).toBe(400);
    // A boolean: false unbinds nothing.
    const kept = await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { clearApiKeyId: false, name: "k2" });
    expect(kept.body).toMatchObject({ mode: "api_key", apiKeyId: o.keyId, name: "k2" });
    const back = await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, {
      clearApiKeyId: true,
      secretKey: "a brand new shared secret",
    });
    expect(back.body).toMatchObject({ mode: "hmac", apiKeyId: null, hasSecret: true });
    const trigger = (sig: string) =>
      request(env, "POST", `/api/webhooks/${id}/trigger`, { body: "{}", headers: { "x-webhook-signature": sig } });
    expect((await trigger(hmacHex("a brand new shared secret", "{}"))).status).toBe(202);
    expect((await trigger(hmacHex(secret, "{}"))).status).toBe(401);
  });

  it("a variable mapping names variables the workflow declares, on create and on update", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const refused = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "m",
      variableMapping: { who: "user", nosuchvar: "x" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([
      {
        in: "body",
        field: "variableMapping.nosuchvar",
        message: "the workflow declares no variable `nosuchvar`; its variables: who, n, flag",
      },
    ]);
    const created = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "m",
      variableMapping: { who: "user" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const update = (variableMapping: Record<string, string>) =>
      consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { variableMapping });
    expect((await update({ whom: "user" })).body.details).toEqual([
      expect.objectContaining({ field: "variableMapping.whom" }),
    ]);
    expect((await update({ n: "count" })).body).toMatchObject({ variableMapping: { n: "count" } });
  });

  it("the key must be the creator's own; the workflow must be editable by the creator", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const stranger = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const foreignKey = await createApiKey(env.platform.store, {
      ownerId: stranger.user.id,
      scopes: ["WEBHOOK_TRIGGER"],
    });
    expect(
      (
        await consoleCall(env, o.session, "POST", "/api/webhooks", {
          workflowId: wf.id,
          name: "k",
          apiKeyId: foreignKey.record.id,
        })
      ).status,
    ).toBe(400);
    expect(
      (await consoleCall(env, stranger.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "k" })).status,
    ).toBe(404);
    const current = (await env.platform.store.workflows.get(wf.id))!;
    await env.platform.store.workflows.update({ ...wf, sharedWith: { [stranger.user.id]: "viewer" } }, current.version);
    expect(
      (await consoleCall(env, stranger.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "k" })).status,
    ).toBe(403);
    const mine = await consoleCall(env, o.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "mine" });
    expect((await consoleCall(env, stranger.session, "GET", `/api/webhooks/${mine.body.id as string}`)).status).toBe(
      404,
    );
  });

  it("plan limits: Free none, Pro three, naming the limit", async () => {
    const env = edge();
    const free = await consoleOwner(env, "free");
    const freeWf = await storeWorkflow(env, free.user.id);
    const refused = await consoleCall(env, free.session, "POST", "/api/webhooks", { workflowId: freeWf.id, name: "x" });
    expect(answer(refused)).toEqual([403, "PLAN_LIMIT"]);
    expect(refused.body.error).toMatch(/free/);
    const pro = await consoleOwner(env, "pro");
    const wf = await storeWorkflow(env, pro.user.id);
    for (let i = 0; i < 3; i++)
      expect(
        (await consoleCall(env, pro.session, "POST", "/api/webhooks", { workflowId: wf.id, name: `w${i}` })).status,
      ).toBe(201);
    const fourth = await consoleCall(env, pro.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "w3" });
    expect(answer(fourth)).toEqual([403, "PLAN_LIMIT"]);
    expect(fourth.body.error).toMatch(/pro plan allows 3/);
  });

  it("answers of one status tell their cases apart by code: 403 FORBIDDEN, PLAN_LIMIT, CSRF_FAILED; 409 CONFLICT, CAS_CONFLICT", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const viewer = await consoleOwner(env);
    const free = await consoleOwner(env, "free");
    const wf = await storeWorkflow(env, o.user.id);
    const current = (await env.platform.store.workflows.get(wf.id))!;
    await env.platform.store.workflows.update({ ...wf, sharedWith: { [viewer.user.id]: "viewer" } }, current.version);
    const create = (session: typeof o.session, workflowId: string, csrf = true) =>
      consoleCall(env, session, "POST", "/api/webhooks", { workflowId, name: "x" }, csrf);
    const onlyViewer = await create(viewer.session, wf.id);
    const noPlan = await create(free.session, (await storeWorkflow(env, free.user.id)).id);
    const noCsrf = await create(o.session, wf.id, false);
    expect([onlyViewer, noPlan, noCsrf].map(answer)).toEqual([
      [403, "FORBIDDEN"],
      [403, "PLAN_LIMIT"],
      [403, "CSRF_FAILED"],
    ]);

    const id = (await create(o.session, wf.id)).body.id as string;
    expect((await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { enabled: false })).status).toBe(200);
    const disabled = await request(env, "POST", `/api/webhooks/${id}/trigger`, { body: "{}" });
    // A concurrent writer moves first, between the PUT's read and its compare-and-set write.
    const webhooks = env.platform.store.webhooks;
    const update = webhooks.update.bind(webhooks);
    webhooks.update = async (record, version) => {
      webhooks.update = update;
      await update({ ...record, name: "the other writer" }, version);
      return update(record, version);
    };
    const lost = await consoleCall(env, o.session, "PUT", `/api/webhooks/${id}`, { name: "mine" });
    expect(webhooks.update).toBe(update);
    expect([disabled, lost].map(answer)).toEqual([
      [409, "CONFLICT"],
      [409, "CAS_CONFLICT"],
    ]);
    expect((await consoleCall(env, o.session, "GET", `/api/webhooks/${id}`)).body.name).toBe("the other writer");
  });

  it("bad fields are 400: allow-list entries, more than 100 of them, unknown fields", async () => {
    const env = edge();
    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const post = (body: Record<string, unknown>) =>
      consoleCall(env, o.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "x", ...body });
    expect((await post({ allowedSourceIps: ["10.0.0.0/33"] })).status).toBe(400);
    expect((await post({ allowedSourceIps: ["not an address"] })).status).toBe(400);
    expect((await post({ allowedSourceIps: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) })).status).toBe(400);
    expect(answer(await post({ secret: "x" }))).toEqual([400, "VALIDATION_FAILED"]);
  });
});
