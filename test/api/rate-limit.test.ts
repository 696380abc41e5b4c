import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { afterAll, describe, expect, it } from "vitest";
import { RateLimitErrorBody } from "@wf/shared/api";
import { startServiceProcess, type ServiceProcess } from "../support/processes";
import { waitFor } from "../support/runtime";
import { account, anotherKey, call, useApi, type ApiEnv } from "./support";

const api = useApi();
const LIST = "/api/v1/workflows";
/** A minute boundary plus one second: 61 requests stay in one minute window. */
const MINUTE = Math.floor(Date.UTC(2030, 0, 15, 10, 0) / 60_000) * 60_000;

/**
 * Sets a key's day counter as if it had made `count` requests today, none this minute (layout as docs/api.md, Rate
 * limits, documents).
 */
async function spendDay(env: ApiEnv, keyId: string, at: number, count: number): Promise<void> {
  const kv = await new Kvm(env.platform.nc).open(`${env.ns}_ratelimits`);
  const date = new Date(at).toISOString().slice(0, 10).replaceAll("-", "");
  await kv.put(`${keyId}.${date}`, JSON.stringify({ d: count, m: 0, e: Math.floor(at / 60_000) - 1 }));
}

describe("per-key rate limits", () => {
  it("answers a Free key's 61st request in one minute with 429 and its headers; the account's second key is unaffected", async () => {
    api().clock.now = MINUTE + 1_000;
    try {
      const free = await account(api(), { plan: "free" });
      for (let i = 1; i <= 60; i++) {
        const r = await call(api(), "GET", LIST, { key: free.key });
        expect(r.statusCode, `request ${i}`).toBe(200);
        expect(r.headers["x-ratelimit-remaining"], `request ${i}`).toBe(String(60 - i));
        expect(r.headers["x-ratelimit-limit"]).toBe("60");
        expect(r.headers["x-ratelimit-window"]).toBe("minute");
      }
      const limited = await call(api(), "GET", LIST, { key: free.key });
      expect(limited.statusCode).toBe(429);
      expect(limited.headers).toMatchObject({
        "retry-after": "59",
        "x-ratelimit-limit": "60",
        "x-ratelimit-window": "minute",
        "x-ratelimit-remaining": "0",
      });
      expect(RateLimitErrorBody.strict().parse(limited.json())).toEqual({
        error: expect.stringContaining("rate limit"),
        code: "RATE_LIMITED",
        window: "minute",
        limit: 60,
        retryAfterSeconds: 59,
      });

      const second = await anotherKey(api(), free);
      const other = await call(api(), "GET", LIST, { key: second });
      expect(other.statusCode).toBe(200);
      expect(other.headers["x-ratelimit-remaining"]).toBe("59");

      // A fixed window: the next minute starts afresh.
      api().clock.now = MINUTE + 60_000;
      expect((await call(api(), "GET", LIST, { key: free.key })).statusCode).toBe(200);
    } finally {
      api().clock.now = null;
    }
  });

  it("counts refused requests too, and limits by the owner's current plan", async () => {
    api().clock.now = MINUTE + 2 * 60_000;
    try {
      const me = await account(api(), { plan: "free", scopes: ["EXECUTION_READ"] });
      // Lacking the scope: 401, and counted all the same.
      for (let i = 0; i < 60; i++) expect((await call(api(), "GET", LIST, { key: me.key })).statusCode).toBe(401);
      const r = await call(api(), "GET", "/api/v1/executions", { key: me.key });
      expect(r.statusCode).toBe(429);
    } finally {
      api().clock.now = null;
    }
  });

  it("answers 429 for the day window with the seconds to 00:00 UTC; Enterprise has no day limit", async () => {
    const at = Date.UTC(2030, 0, 15, 23, 59, 0);
    api().clock.now = at;
    try {
      const free = await account(api(), { plan: "free" });
      await spendDay(api(), free.keyId, at, 2_000);
      const limited = await call(api(), "GET", LIST, { key: free.key });
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({
        error: expect.any(String),
        code: "RATE_LIMITED",
        window: "day",
        limit: 2_000,
        retryAfterSeconds: 60,
      });
      expect(limited.headers).toMatchObject({
        "retry-after": "60",
        "x-ratelimit-window": "day",
        "x-ratelimit-limit": "2000",
      });

      const big = await account(api(), { plan: "enterprise" });
      await spendDay(api(), big.keyId, at, 10_000_000);
      const ok = await call(api(), "GET", LIST, { key: big.key });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers).toMatchObject({
        "x-ratelimit-limit": "6000",
        "x-ratelimit-window": "minute",
        "x-ratelimit-remaining": "5999",
      });
    } finally {
      api().clock.now = null;
    }
  });
});

describe("what counting costs", () => {
  it("lets a key polling one request after another share its counter's writes, and keeps every count", async () => {
    api().clock.now = MINUTE + 3 * 60_000;
    try {
      const pro = await account(api(), { plan: "pro" });
      const stream = `KV_${api().ns}_ratelimits`;
      const jsm = await jetstreamManager(api().platform.nc);
      const writes = async () => (await jsm.streams.info(stream)).state.last_seq;
      const before = await writes();
      for (let i = 1; i <= 40; i++) {
        const r = await call(api(), "GET", LIST, { key: pro.key });
        expect(r.statusCode, `request ${i}`).toBe(200);
        expect(r.headers["x-ratelimit-remaining"], `request ${i}`).toBe(String(300 - i));
      }
      // Counts answered ahead are written within their linger, all of them.
      const kv = await new Kvm(api().platform.nc).open(`${api().ns}_ratelimits`);
      const date = new Date(MINUTE).toISOString().slice(0, 10).replaceAll("-", "");
      await waitFor(
        async () => ((await kv.get(`${pro.keyId}.${date}`))?.json<{ d: number }>().d === 40 ? true : undefined),
        { timeoutMs: 5_000, what: "the 40 requests counted in the store" },
      );
      // One write per request before; the plan's 1% (3 of Pro's 300 a minute) may go ahead of a write.
      expect(await writes()).toBeLessThanOrEqual(before + 15);
    } finally {
      api().clock.now = null;
    }
  });
});

describe("rate limits across edge replicas", () => {
  const edges: ServiceProcess[] = [];
  afterAll(async () => {
    for (const e of edges) await e.kill();
  });

  it("shares one key's count between two edge processes", async () => {
    const env = { NATS_URL: api().server.url, WF_NAMESPACE: api().ns, PORT: "0", HOST: "127.0.0.1" };
    for (let i = 0; i < 2; i++)
      edges.push(await startServiceProcess("services/edge/src/main.ts", env, ["edge listening"]));
    const urls = edges.map((e) => /"msg":"edge listening".*?"address":"([^"]+)"/.exec(e.output())![1]!);
    const free = await account(api(), { plan: "free" });

    // The real clock: start the 61 requests early in a minute, so they fall in one window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));

    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const r = await fetch(`${urls[i % 2]}${LIST}`, { headers: { authorization: `Bearer ${free.key}` } });
      statuses.push(r.status);
      if (i === 60) {
        expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(await r.json()).toMatchObject({ window: "minute", limit: 60 });
      } else {
        await r.arrayBuffer();
      }
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
  });
});
