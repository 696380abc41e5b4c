import { createHmac } from "node:crypto";
import http from "node:http";
import { describe, expect, it } from "vitest";
import { consoleCall, consoleOwner, hmacHex, request, storeWorkflow, useWebhookEdge, type WebhookEnv } from "./support";

/** A small budget of wrong signatures, so that a test passes it quickly. */
const BUDGET = 3;
const edge = useWebhookEdge({ WF_WEBHOOK_SIGNATURE_FAILURES_PER_MINUTE: String(BUDGET) });
const SECRET = "a shared secret of some length";
/** How long a request whose body never comes may wait for its answer: an edge that waits for the body never answers. */
const NO_BODY_BOUND_MS = 5_000;

type Host = "127.0.0.1" | "::1";

interface Answer {
  status: number;
  code: unknown;
  body: Record<string, unknown>;
  retryAfter: string | undefined;
}

async function webhook(env: WebhookEnv, fields: Record<string, unknown> = {}): Promise<string> {
  const o = await consoleOwner(env);
  const wf = await storeWorkflow(env, o.user.id);
  const r = await consoleCall(env, o.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "hook", ...fields });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

/**
 * Sends a trigger's headers, declaring a body of `length` bytes, and never the body: an answer comes only if the edge
 * decided without reading it. Rejects when none comes within NO_BODY_BOUND_MS.
 */
function answerWithoutBody(
  env: WebhookEnv,
  id: string,
  headers: Record<string, string>,
  opts: { host?: Host; length?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: opts.host ?? "127.0.0.1",
      port: env.port,
      method: "POST",
      path: `/api/webhooks/${id}/trigger`,
      headers: { "content-type": "application/json", "content-length": String(opts.length ?? 1024), ...headers },
    });
    const bound = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${NO_BODY_BOUND_MS} ms without the body: the edge waited for it`));
    }, NO_BODY_BOUND_MS);
    req.on("error", (err) => {
      clearTimeout(bound);
      reject(err);
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        clearTimeout(bound);
        req.destroy();
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        const retryAfter = res.headers["retry-after"];
        resolve({ status: res.statusCode!, code: body.code, body, retryAfter });
      });
    });
    req.flushHeaders();
  });
}

const trigger = (env: WebhookEnv, id: string, body: string, headers: Record<string, string>, host?: "[::1]") =>
  request(env, "POST", `/api/webhooks/${id}/trigger`, { body, headers, ...(host ? { host } : {}) });

/** A signature of the right form that no secret made. */
const WRONG = `sha256=${"ab".repeat(32)}`;

describe("webhook trigger: refused before its body is read", () => {
  it("without a well-formed signature, 401; with a wrong key, 401; declared over 1 MB, 413", async () => {
    const env = edge();
    const hmac = await webhook(env, { secretKey: SECRET });
    const malformed: Record<string, string>[] = [
      {},
      { "x-webhook-signature": "sha256=not-hex" },
      { "x-webhook-signature": "ab12" },
    ];
    for (const headers of malformed)
      expect(await answerWithoutBody(env, hmac, headers)).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect(
      await answerWithoutBody(env, hmac, { "x-webhook-signature": WRONG }, { length: 2 * 1024 * 1024 }),
    ).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });

    const replay = await webhook(env, { secretKey: SECRET, replayProtection: true });
    const stale = Math.floor(Date.now() / 1000) - 600;
    const staleHeaders = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(stale),
      "webhook-signature": `v1,${createHmac("sha256", SECRET).update(`msg_1.${stale}.{}`).digest("base64")}`,
    };
    expect(await answerWithoutBody(env, replay, staleHeaders)).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect(await answerWithoutBody(env, replay, { "x-webhook-signature": hmacHex(SECRET, "{}") })).toMatchObject({
      status: 401,
    });

    const o = await consoleOwner(env);
    const wf = await storeWorkflow(env, o.user.id);
    const bound = await consoleCall(env, o.session, "POST", "/api/webhooks", {
      workflowId: wf.id,
      name: "keyed",
      apiKeyId: o.keyId,
    });
    const keyed = bound.body.id as string;
    expect(await answerWithoutBody(env, keyed, {})).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect(await answerWithoutBody(env, keyed, { authorization: "Bearer wfk_nope_nope" })).toMatchObject({
      status: 401,
    });
    // The right signature and the right key still pass, their bodies read.
    expect((await trigger(env, hmac, "{}", { "x-webhook-signature": hmacHex(SECRET, "{}") })).status).toBe(202);
    expect((await trigger(env, keyed, "{}", { authorization: `Bearer ${o.key}` })).status).toBe(202);
  });

  it(`past ${BUDGET} wrong signatures from one address, its triggers are 429 unread; others pass`, async () => {
    const env = edge();
    const flooded = await webhook(env, { secretKey: SECRET });
    const other = await webhook(env, { secretKey: SECRET });
    const signed = { "x-webhook-signature": hmacHex(SECRET, "{}") };

    // Below the budget, wrong signatures are checked over their bodies (401), and triggers in flight do not count:
    // many signed ones at once from the same address all pass.
    for (let i = 0; i < BUDGET - 1; i++)
      expect((await trigger(env, flooded, "{}", { "x-webhook-signature": WRONG })).status).toBe(401);
    const burst = await Promise.all(Array.from({ length: 20 }, () => trigger(env, flooded, "{}", signed)));
    expect(burst.map((r) => r.status)).toEqual(Array<number>(20).fill(202));
    expect((await trigger(env, flooded, "{}", { "x-webhook-signature": WRONG })).status).toBe(401);

    // Past it: refused before the body is read, whatever the signature, with when to retry.
    const throttled = await answerWithoutBody(env, flooded, { "x-webhook-signature": WRONG });
    expect(throttled).toMatchObject({ status: 429, code: "WEBHOOK_THROTTLED" });
    const retryAfter = Number(throttled.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(throttled.body.retryAfterSeconds).toBe(retryAfter);
    expect(throttled.body).toMatchObject({ window: "minute", limit: BUDGET });
    expect((await trigger(env, flooded, "{}", signed)).status).toBe(429);

    // Another address, and another webhook from the same address, are not held up.
    expect((await trigger(env, flooded, "{}", signed, "[::1]")).status).toBe(202);
    expect((await trigger(env, other, "{}", signed)).status).toBe(202);
    expect((await trigger(env, other, "{}", { "x-webhook-signature": WRONG })).status).toBe(401);

    const { items } = await env.platform.store.audit.listSince(0, { page: 1, size: 100 });
    expect(items.filter((r) => r.reason === "webhook_throttled").length).toBeGreaterThanOrEqual(2);
  });
});
