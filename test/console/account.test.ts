import { describe, expect, it } from "vitest";
import { createApiKey, MAX_USABLE_KEYS_PER_USER } from "@wf/shared/auth";
import { ExecutionSnapshot, newId } from "@wf/shared/execution";
import { MAX_SECRETS_PER_OWNER, openOwnerSecretsBox, openSecret } from "@wf/shared/secrets";
import { secretId } from "@wf/shared/store";
import { call, SIMPLE_YAML, storeWorkflow } from "../api/support";
import { consoleSession, useConsole, type Session } from "./support";

// An executor: the console asks the executors to keep secrets.
const env = useConsole({ runtime: true });

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** A console request through inject: the session's cookie (when given) and, unless `csrf` is false, its token. */
async function send(
  session: Session | null,
  method: Method,
  url: string,
  opts: { body?: unknown; csrf?: boolean } = {},
) {
  const headers: Record<string, string> = {};
  if (session) headers.cookie = session.cookie;
  if (session && opts.csrf !== false) headers["x-csrf-token"] = session.csrf;
  const r = await call(env(), method, url, { headers, ...(opts.body === undefined ? {} : { body: opts.body }) });
  return { status: r.statusCode, body: (r.body === "" ? {} : r.json()) as Record<string, unknown>, raw: r.body };
}

const fields = (body: Record<string, unknown>): unknown[] =>
  ((body.details ?? []) as { field: string }[]).map((d) => d.field);

const ROUTES: { method: Method; url: string; body?: unknown }[] = [
  { method: "POST", url: "/api/console/keys", body: { name: "ci", scopes: ["WORKFLOW_READ"] } },
  { method: "GET", url: "/api/console/keys" },
  { method: "DELETE", url: "/api/console/keys/nope" },
  { method: "PUT", url: "/api/console/secrets/TOKEN", body: { value: "s3cret-value" } },
  { method: "GET", url: "/api/console/secrets" },
  { method: "DELETE", url: "/api/console/secrets/TOKEN" },
  { method: "POST", url: "/api/console/password", body: { current: "x", next: "yyyyyyyy" } },
  { method: "GET", url: "/api/console/usage" },
];

describe("console account routes: session and CSRF", () => {
  it("answer 401 without a session, and 403 CSRF_FAILED without the token on changes", async () => {
    const me = await consoleSession(env());
    for (const r of ROUTES) {
      const anonymous = await send(null, r.method, r.url, { body: r.body });
      expect([r.url, anonymous.status, anonymous.body.code]).toEqual([r.url, 401, "SESSION_REQUIRED"]);
      if (r.method !== "GET") {
        const noCsrf = await send(me, r.method, r.url, { body: r.body, csrf: false });
        expect([r.method, r.url, noCsrf.status, noCsrf.body.code]).toEqual([r.method, r.url, 403, "CSRF_FAILED"]);
      }
    }
    // Nothing of the refused changes happened.
    expect((await send(me, "GET", "/api/console/keys")).body.items).toEqual([]);
    expect((await send(me, "GET", "/api/console/secrets")).body.items).toEqual([]);
  });
});

describe("/api/console/keys", () => {
  it("creates a key shown once, lists it without its secret, /api/v1 accepts it until it is revoked", async () => {
    const me = await consoleSession(env());
    await storeWorkflow(env(), me.user.id, SIMPLE_YAML);
    const before = Date.now();
    const created = await send(me, "POST", "/api/console/keys", {
      body: { name: "ci", scopes: ["WORKFLOW_READ", "WORKFLOW_READ"], expiresInDays: 30 },
    });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(new RegExp(`^wfk_${created.body.id as string}_[0-9a-f]{64}$`));
    expect(created.body).toMatchObject({
      name: "ci",
      scopes: ["WORKFLOW_READ"],
      revoked: false,
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(created.body.expiresAt as number).toBeGreaterThanOrEqual(before + 30 * 86_400_000);

    const v1 = await call(env(), "GET", "/api/v1/workflows", { key });
    expect(v1.statusCode).toBe(200);
    expect((v1.json() as { items: unknown[] }).items).toHaveLength(1);

    const listed = await send(me, "GET", "/api/console/keys");
    expect(listed.status).toBe(200);
    const secret = key.split("_")[2]!;
    expect(listed.raw).not.toContain(secret);
    expect(listed.raw).not.toContain("secretHash");
    expect(listed.body.items).toEqual([
      {
        id: created.body.id,
        name: "ci",
        scopes: ["WORKFLOW_READ"],
        createdAt: created.body.createdAt,
        expiresAt: created.body.expiresAt,
        lastUsedAt: expect.anything(),
        revoked: false,
        revokedAt: null,
      },
    ]);

    const revoked = await send(me, "DELETE", `/api/console/keys/${created.body.id as string}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, revoked: true, revokedAt: expect.any(Number) });
    expect((await call(env(), "GET", "/api/v1/workflows", { key })).statusCode).toBe(401);
    expect((await send(me, "GET", "/api/console/keys")).body.items).toEqual([
      expect.objectContaining({ id: created.body.id, revoked: true }),
    ]);
  });

  it("answers 400 naming the field for bad bodies", async () => {
    const me = await consoleSession(env());
    const cases: [unknown, string][] = [
      [{ scopes: ["WORKFLOW_READ"] }, "name"],
      [{ name: "x", scopes: [] }, "scopes"],
      [{ name: "x", scopes: ["NOPE"] }, "scopes[0]"],
      [{ name: "x", scopes: ["WORKFLOW_READ"], expiresInDays: 0 }, "expiresInDays"],
      [{ name: "x", scopes: ["WORKFLOW_READ"], expiresInDays: 1.5 }, "expiresInDays"],
      [{ name: "x", scopes: ["WORKFLOW_READ"], ownerId: "someone" }, "ownerId"],
    ];
    for (const [body, field] of cases) {
      const r = await send(me, "POST", "/api/console/keys", { body });
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), 400, "VALIDATION_FAILED"]);
      expect(fields(r.body)).toContain(field);
    }
  });

  it("does not show or revoke another user's key (404), nor list it", async () => {
    const me = await consoleSession(env());
    const other = await consoleSession(env());
    const theirs = await send(other, "POST", "/api/console/keys", {
      body: { name: "theirs", scopes: ["WORKFLOW_READ"] },
    });
    expect(theirs.status).toBe(201);
    const r = await send(me, "DELETE", `/api/console/keys/${theirs.body.id as string}`);
    expect([r.status, r.body.code]).toEqual([404, "NOT_FOUND"]);
    expect((await send(me, "GET", "/api/console/keys")).body.items).toEqual([]);
    expect((await call(env(), "GET", "/api/v1/workflows", { key: theirs.body.key as string })).statusCode).toBe(200);
  });

  it("holds at most MAX_USABLE_KEYS_PER_USER usable keys an account: past it a 409; revoked and expired ones do not count", async () => {
    const me = await consoleSession(env());
    const create = () => send(me, "POST", "/api/console/keys", { body: { name: "k", scopes: ["WORKFLOW_READ"] } });
    // An expired key of the account's, made while it was valid.
    const past = Date.now() - 86_400_000;
    await createApiKey(
      env().platform.store,
      { ownerId: me.user.id, name: "old", scopes: ["WORKFLOW_READ"], expiresAt: past + 1 },
      past,
    );
    const ids: string[] = [];
    for (let i = 0; i < MAX_USABLE_KEYS_PER_USER; i++) {
      const r = await create();
      expect(r.status).toBe(201);
      ids.push(r.body.id as string);
    }
    const refused = await create();
    expect([refused.status, refused.body.code, refused.body.error]).toEqual([
      409,
      "CONFLICT",
      `an account holds at most ${MAX_USABLE_KEYS_PER_USER} usable API keys: revoke one it no longer needs first`,
    ]);
    expect((await send(me, "DELETE", `/api/console/keys/${ids[0]!}`)).status).toBe(200);
    expect((await create()).status).toBe(201);
    expect((await send(me, "GET", "/api/console/keys")).body.items).toHaveLength(MAX_USABLE_KEYS_PER_USER + 2);
  });
});

describe("/api/console/secrets", () => {
  it("sets a sealed secret, lists names without values, deletes it; another user's is invisible", async () => {
    const me = await consoleSession(env());
    const other = await consoleSession(env());
    const value = "sk-live-very-secret-123";
    const put = await send(me, "PUT", "/api/console/secrets/OPENAI_KEY", { body: { value } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ name: "OPENAI_KEY", createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    // Sealed as `wf admin secret set` seals it: the stored record never holds the value.
    const stored = await env().platform.store.secrets.get(secretId(me.user.id, "OPENAI_KEY"));
    expect(stored?.value.sealed).toBeTruthy();
    expect(JSON.stringify(stored?.value)).not.toContain(value);
    expect(await openSecret(env().platform.store, await ownerBox(), me.user.id, "OPENAI_KEY")).toBe(value);

    const replaced = await send(me, "PUT", "/api/console/secrets/OPENAI_KEY", { body: { value: "another-value" } });
    expect(replaced.body.createdAt).toBe(put.body.createdAt);

    const listed = await send(me, "GET", "/api/console/secrets");
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      { name: "OPENAI_KEY", createdAt: put.body.createdAt, updatedAt: expect.any(Number) },
    ]);
    expect(listed.raw).not.toContain("another-value");
    expect(listed.raw).not.toContain("sealed");

    expect((await send(other, "GET", "/api/console/secrets")).body.items).toEqual([]);
    const theirs = await send(other, "DELETE", "/api/console/secrets/OPENAI_KEY");
    expect([theirs.status, theirs.body.code]).toEqual([404, "NOT_FOUND"]);

    expect((await send(me, "DELETE", "/api/console/secrets/OPENAI_KEY")).status).toBe(204);
    expect((await send(me, "GET", "/api/console/secrets")).body.items).toEqual([]);
    expect((await send(me, "DELETE", "/api/console/secrets/OPENAI_KEY")).status).toBe(404);
  });

  it("keeps at most MAX_SECRETS_PER_OWNER secrets an account: past it a new name is a 409, a replacement still works", async () => {
    const me = await consoleSession(env());
    const put = (name: string) =>
      send(me, "PUT", `/api/console/secrets/${name}`, { body: { value: `value-of-${name}` } });
    for (let i = 0; i < MAX_SECRETS_PER_OWNER; i++) expect((await put(`S${i}`)).status).toBe(200);
    const refused = await put("ONE_MORE");
    expect([refused.status, refused.body.code]).toEqual([409, "CONFLICT"]);
    expect(refused.body.error).toBe(
      `an account keeps at most ${MAX_SECRETS_PER_OWNER} secrets: delete one it no longer needs first`,
    );
    expect((await put("S0")).status).toBe(200);
    expect((await send(me, "DELETE", "/api/console/secrets/S1")).status).toBe(204);
    expect((await put("ONE_MORE")).status).toBe(200);
  });

  it("answers 400 naming the field for a bad name or value", async () => {
    const me = await consoleSession(env());
    const bad = [
      { url: "/api/console/secrets/1abc", body: { value: "long enough" }, field: "name" },
      { url: "/api/console/secrets/OK", body: { value: "abc" }, field: "value" },
      { url: "/api/console/secrets/OK", body: {}, field: "value" },
      { url: "/api/console/secrets/OK", body: { value: "long enough", extra: 1 }, field: "extra" },
    ];
    for (const b of bad) {
      const r = await send(me, "PUT", b.url, { body: b.body });
      expect([b.url, r.status, r.body.code]).toEqual([b.url, 400, "VALIDATION_FAILED"]);
      expect(fields(r.body)).toContain(b.field);
    }
    expect((await send(me, "DELETE", "/api/console/secrets/bad-name")).status).toBe(400);
  });
});

/** The owners' secrets box as the executors open it (same config, same key). */
async function ownerBox() {
  const p = env().platform;
  return openOwnerSecretsBox({ nc: p.nc, config: p.config, store: p.store, log: p.log });
}

describe("POST /api/console/password", () => {
  it("changes the password: the new one logs in, the old one no longer does, other sessions end", async () => {
    const me = await consoleSession(env());
    const elsewhere = await login(me.user.email, "correct horse battery");
    expect(elsewhere.status).toBe(200);

    const wrong = await send(me, "POST", "/api/console/password", {
      body: { current: "not it", next: "new password 1" },
    });
    expect([wrong.status, wrong.body.code]).toEqual([403, "PASSWORD_INCORRECT"]);
    expect(wrong.body.error).toMatch(/current/);

    const short = await send(me, "POST", "/api/console/password", {
      body: { current: "correct horse battery", next: "short" },
    });
    expect([short.status, short.body.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(fields(short.body)).toEqual(["next"]);

    const changed = await send(me, "POST", "/api/console/password", {
      body: { current: "correct horse battery", next: "new password 1" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ otherSessionsEnded: 1 });

    expect((await login(me.user.email, "correct horse battery")).status).toBe(401);
    expect((await login(me.user.email, "new password 1")).status).toBe(200);
    // This session stays; the other one ended.
    expect((await send(me, "GET", "/api/console/keys")).status).toBe(200);
    const ended = await call(env(), "GET", "/api/console/keys", { headers: { cookie: elsewhere.cookie } });
    expect(ended.statusCode).toBe(401);
  });
});

async function login(email: string, password: string): Promise<{ status: number; cookie: string }> {
  const r = await call(env(), "POST", "/api/console/login", { body: { email, password } });
  const cookie = r.headers["set-cookie"];
  return { status: r.statusCode, cookie: (Array.isArray(cookie) ? cookie[0]! : (cookie ?? "")).split(";")[0]! };
}

describe("GET /api/console/usage", () => {
  it("sums the usage of the user's executions by day, workflow and status, and counts each key's requests", async () => {
    const me = await consoleSession(env(), "pro");
    const other = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, SIMPLE_YAML);
    const now = Date.now();
    const execution = (ownerId: string, status: string, createdAt: number, usage: object) =>
      ExecutionSnapshot.parse({
        id: newId(),
        workflowId: wf.id,
        workflowName: wf.name,
        ownerId,
        triggerSource: "open_api",
        status,
        totalSteps: 1,
        createdAt,
        vars: {},
        definition: wf.definition,
        usage,
      });
    const store = env().platform.store.executions;
    await store.create(
      execution(me.user.id, "COMPLETED", now - 1000, {
        promptTokens: 100,
        completionTokens: 50,
        totalTokens: 150,
        costUsd: 0.25,
      }),
    );
    await store.create(
      execution(me.user.id, "FAILED", now - 500, {
        promptTokens: 10,
        completionTokens: 5,
        totalTokens: 15,
        costUsd: 0.5,
      }),
    );
    // Outside a 1-day window, and another user's: neither counts.
    await store.create(
      execution(me.user.id, "COMPLETED", now - 3 * 86_400_000, {
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        costUsd: 9,
      }),
    );
    await store.create(
      execution(other.user.id, "COMPLETED", now - 100, {
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        costUsd: 7,
      }),
    );

    const created = await send(me, "POST", "/api/console/keys", { body: { name: "ci", scopes: ["WORKFLOW_READ"] } });
    for (let i = 0; i < 3; i++)
      expect((await call(env(), "GET", "/api/v1/workflows", { key: created.body.key as string })).statusCode).toBe(200);

    const r = await send(me, "GET", "/api/console/usage?days=1");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      days: 1,
      executionsRead: 2,
      truncated: false,
      total: { promptTokens: 110, completionTokens: 55, totalTokens: 165, costUsd: 0.75 },
      byStatus: { COMPLETED: 1, FAILED: 1 },
      plan: "pro",
    });
    expect(r.body.byWorkflow).toEqual([
      {
        workflowId: wf.id,
        workflowName: wf.name,
        executions: 2,
        promptTokens: 110,
        completionTokens: 55,
        totalTokens: 165,
        costUsd: 0.75,
      },
    ]);
    const days = r.body.byDay as { date: string; executions: number; costUsd: number }[];
    expect(days.reduce((n, d) => n + d.executions, 0)).toBe(2);
    expect(days.reduce((n, d) => n + d.costUsd, 0)).toBeCloseTo(0.75);
    expect(r.body.keys).toEqual([
      {
        id: created.body.id,
        name: "ci",
        minute: { count: expect.any(Number), limit: 300 },
        day: { count: 3, limit: 50_000 },
      },
    ]);

    const wide = await send(me, "GET", "/api/console/usage");
    expect(wide.body).toMatchObject({ days: 30, executionsRead: 3, total: { costUsd: 9.75 } });
    expect(wide.body.byDay).toHaveLength(30);

    const bad = await send(me, "GET", "/api/console/usage?days=0");
    expect([bad.status, fields(bad.body)]).toEqual([400, ["days"]]);
  });
});
