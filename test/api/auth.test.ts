import { describe, expect, it } from "vitest";
import { revokeApiKey, updateUser, type AuditReason, type Scope } from "@wf/shared/auth";
import { streamNames, subjects } from "@wf/shared/nats";
import { apiRoutes } from "@wf/edge";
import { waitFor } from "../support/runtime";
import { account, ALL_SCOPES, call, useApi, type ApiEnv } from "./support";

const api = useApi();

const LIST = "/api/v1/workflows";

function get(env: ApiEnv, headers: Record<string, string>, query = "") {
  return env.app.inject({ method: "GET", url: `${LIST}${query}`, headers });
}

/** The newest audit record since `since` and the newest event on `<ns>.audit.<reason>`: they must agree. */
async function audited(env: ApiEnv, reason: AuditReason, since: number) {
  const { items } = await env.platform.store.audit.listSince(since, { page: 1, size: 50 });
  const record = items.find((r) => r.reason === reason);
  expect(record, `an audit record with reason ${reason}`).toBeDefined();
  const event = await env.platform.jsm.streams.getMessage(streamNames(env.ns).audit, {
    last_by_subj: subjects(env.ns).audit(reason),
  });
  expect(event?.json()).toEqual(record);
  return record!;
}

describe("credentials: three forms in priority order", () => {
  it("takes Authorization: Bearer first; a wrong lower form does not matter", async () => {
    const me = await account(api());
    expect((await get(api(), { authorization: `Bearer ${me.key}`, "x-api-key": "wfk_junk" })).statusCode).toBe(200);
    expect((await get(api(), { authorization: `bearer ${me.key}` })).statusCode).toBe(200);
  });

  it("never lets a lower form override a non-empty higher one", async () => {
    const me = await account(api());
    expect((await get(api(), { authorization: "Bearer wfk_wrong", "x-api-key": me.key })).statusCode).toBe(401);
    expect((await get(api(), { authorization: "Basic dXNlcjpwYXNz", "x-api-key": me.key })).statusCode).toBe(401);
    expect((await get(api(), { "x-api-key": "wfk_wrong" }, `?api_key=${me.key}`)).statusCode).toBe(401);
  });

  it("falls through an empty higher form: an empty Authorization, `Bearer ` with nothing, an empty X-API-Key", async () => {
    const me = await account(api());
    expect((await get(api(), { authorization: "", "x-api-key": me.key })).statusCode).toBe(200);
    expect((await get(api(), { authorization: "Bearer ", "x-api-key": me.key })).statusCode).toBe(200);
    expect((await get(api(), { authorization: "Bearer", "x-api-key": me.key })).statusCode).toBe(200);
    expect((await get(api(), { authorization: "Bearer   ", "x-api-key": "" }, `?api_key=${me.key}`)).statusCode).toBe(
      200,
    );
    expect((await get(api(), { "x-api-key": "   " }, `?api_key=${me.key}`)).statusCode).toBe(200);
  });

  it("accepts the query form, which is not taken for an unknown query field", async () => {
    const me = await account(api());
    const r = await get(api(), {}, `?api_key=${me.key}&size=5`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ size: 5 });
  });
});

describe("401: one answer, the reason in the audit log", () => {
  it("records each reason as a store record and a <ns>.audit.<reason> event; the client sees the same 401", async () => {
    const me = await account(api());
    const other = await account(api());
    const expiring = await account(api(), { expiresAt: Date.now() + 60_000 });
    const revoked = await account(api());
    await revokeApiKey(api().platform.store, revoked.keyId);
    const reader = await account(api(), { scopes: ["EXECUTION_READ"] });
    const secretOfOther = other.key.slice(other.key.lastIndexOf("_"));

    const cases: [AuditReason, Record<string, string>, string | null, number?][] = [
      ["missing", {}, null],
      ["malformed", { authorization: "Bearer not-a-key" }, null],
      ["unknown_key", { "x-api-key": `wfk_01zzzzzzzzzzzzzzzzzz_${"a".repeat(64)}` }, "01zzzzzzzzzzzzzzzzzz"],
      ["bad_secret", { authorization: `Bearer wfk_${me.keyId}${secretOfOther}` }, me.keyId],
      ["revoked", { authorization: `Bearer ${revoked.key}` }, revoked.keyId],
      ["expired", { authorization: `Bearer ${expiring.key}` }, expiring.keyId, Date.now() + 120_000],
      ["insufficient_scope", { authorization: `Bearer ${reader.key}` }, reader.keyId],
    ];
    const bodies = new Set<string>();
    for (const [reason, headers, keyId, at] of cases) {
      const since = Date.now();
      api().clock.now = at ?? null;
      const r = await get(api(), headers, "?page=1");
      api().clock.now = null;
      expect(r.statusCode, reason).toBe(401);
      bodies.add(r.body);
      const record = await audited(api(), reason, since);
      expect(record).toMatchObject({ reason, keyId, ip: "127.0.0.1", method: "GET", path: LIST });
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual({ error: expect.any(String), code: "UNAUTHORIZED" });
  });

  it("an unknown key id and a known one with a wrong secret get the very same answer, headers included", async () => {
    const me = await account(api());
    const secretOf = (key: string) => key.slice(key.lastIndexOf("_") + 1);
    const wrongSecret = `wfk_${me.keyId}_${secretOf((await account(api())).key)}`;
    const unknownId = `wfk_01zzzzzzzzzzzzzzzzzy_${secretOf(me.key)}`;
    const since = Date.now();
    const [a, b] = [
      await get(api(), { authorization: `Bearer ${unknownId}` }),
      await get(api(), { authorization: `Bearer ${wrongSecret}` }),
    ];
    const shown = (r: typeof a) => ({ status: r.statusCode, body: r.body, headers: { ...r.headers, date: undefined } });
    expect(shown(a)).toEqual(shown(b));
    expect(a.statusCode).toBe(401);
    // Only the audit log tells them apart.
    expect(await audited(api(), "unknown_key", since)).toMatchObject({ keyId: "01zzzzzzzzzzzzzzzzzy" });
    expect(await audited(api(), "bad_secret", since)).toMatchObject({ keyId: me.keyId });
  });

  it("never puts a query-string key into the audit record", async () => {
    const since = Date.now();
    const r = await get(api(), {}, "?api_key=wfk_leaked_secret");
    expect(r.statusCode).toBe(401);
    const record = await audited(api(), "malformed", since);
    expect(JSON.stringify(record)).not.toContain("leaked");
  });

  it("each route asks for its own scope: a key with every other scope gets 401", async () => {
    for (const route of apiRoutes) {
      if (route.auth === "public" || route.auth === "signed-url") continue;
      const scope = route.auth;
      const lacking = await account(api(), { scopes: ALL_SCOPES.filter((s): s is Scope => s !== scope) });
      const url = route.path.replace(/\{\w+\}/g, "x");
      const r = await call(api(), route.method, url, { key: lacking.key });
      expect(r.statusCode, `${route.method} ${route.path} without ${scope}`).toBe(401);
    }
  });
});

describe("keys and accounts take effect at once", () => {
  it("a revoked key is refused on its next request", async () => {
    const me = await account(api());
    expect((await call(api(), "GET", LIST, { key: me.key })).statusCode).toBe(200);
    await revokeApiKey(api().platform.store, me.keyId);
    expect((await call(api(), "GET", LIST, { key: me.key })).statusCode).toBe(401);
  });

  it("an expired key is refused from its expiry on", async () => {
    const expiresAt = Date.now() + 60_000;
    const me = await account(api(), { expiresAt });
    api().clock.now = expiresAt - 1;
    expect((await call(api(), "GET", LIST, { key: me.key })).statusCode).toBe(200);
    api().clock.now = expiresAt;
    expect((await call(api(), "GET", LIST, { key: me.key })).statusCode).toBe(401);
    api().clock.now = null;
  });

  it.each(["deactivated", "locked"] as const)(
    "answers 403 while the owner is %s, and 200 again once active",
    async (status) => {
      const me = await account(api());
      await updateUser(api().platform.store, me.user.id, { status });
      const r = await call(api(), "GET", LIST, { key: me.key });
      expect(r.statusCode).toBe(403);
      expect(r.json()).toEqual({ error: expect.stringContaining(status), code: "ACCOUNT_INACTIVE" });
      await updateUser(api().platform.store, me.user.id, { status: "active" });
      expect((await call(api(), "GET", LIST, { key: me.key })).statusCode).toBe(200);
    },
  );

  it("keeps lastUsedAt without a write per request", async () => {
    const me = await account(api());
    for (let i = 0; i < 5; i++) await call(api(), "GET", LIST, { key: me.key });
    const key = await waitFor(async () => {
      const k = await api().platform.store.apiKeys.get(me.keyId);
      return k?.value.lastUsedAt ? k : undefined;
    });
    // One touch for the first five requests; the next five, within the minute, write nothing.
    expect(key.value.lastUsedAt).toEqual(expect.any(Number));
    const { version } = key;
    for (let i = 0; i < 5; i++) await call(api(), "GET", LIST, { key: me.key });
    expect((await api().platform.store.apiKeys.get(me.keyId))!.version).toBe(version);
  });
});
