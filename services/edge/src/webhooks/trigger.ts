import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { WebhookTriggerParams } from "@wf/shared/api";
import { PLAN_LIMITS, type AuditReason } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import type { WebhookRecord } from "@wf/shared/store";
import { roleOn } from "../access/roles";
import { pathOf, refuse } from "../auth/authenticate";
import { extractCredential } from "../auth/credentials";
import { verifyKey } from "../auth/verify-key";
import type { EdgeContext } from "../context";
import { AnswerError, errorAnswer } from "../errors";
import { enforcePlanLimit, rateHeaders } from "../rate-limit/enforce";
import { fastifyPath } from "../routes/route";
import { depthError } from "../routes/validate";
import { startStoredWorkflow } from "../start-execution";
import {
  legacySignatureMatches,
  legacySignatureOf,
  standardSignatureMatches,
  standardSignaturesOf,
  type StandardCheck,
  type StandardHeaders,
} from "./signature";
import { sourceAllowed } from "./source-address";
import { TRIGGER_BODY_LIMIT_BYTES, triggerRouteDocs } from "./trigger-doc";
import { webhookInputs } from "./variables";

const UNAUTHORIZED = "unauthorized: the webhook's credentials are missing or wrong";

declare module "fastify" {
  interface FastifyRequest {
    /** The triggered webhook, once found and enabled. */
    webhook: WebhookRecord | null;
    /** What the trigger counts against, once authenticated; null while its signature waits for the body. */
    triggerCounter: string | null;
    /** Why the trigger was refused: its answer's `error`, for the webhook's stats. */
    refusal: string | null;
  }
}

/**
 * The trigger (canonical and legacy path, one handler) in its own Fastify scope: any content
 * type is read as raw bytes (the HMAC is over the exact bytes, so nothing may re-serialise the
 * body first), up to 1 MB. What can be told without the body is told before it is read, so that
 * a client without the credential costs no body and no HMAC (docs/webhooks.md#unauthenticated-floods):
 * unknown 404 → disabled 409 → declared too large 413 → the key, or the signature's form and the
 * address's budget of wrong ones, 401/429 → the body (413) → the rest in the handler.
 */
export function registerWebhookTrigger(app: FastifyInstance, ctx: EdgeContext): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer", bodyLimit: TRIGGER_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.decorateRequest("webhook", null);
    scope.decorateRequest("triggerCounter", null);
    scope.decorateRequest("refusal", null);
    scope.addHook("preParsing", async (request, reply) => {
      const webhook = await triggerable(ctx, request);
      request.webhook = webhook;
      request.triggerCounter = await beforeBody(ctx, request, reply, webhook);
    });
    scope.addHook("onError", async (request, _reply, err) => {
      request.refusal = errorAnswer(err).body.error;
    });
    scope.addHook("onResponse", async (request, reply) => {
      if (request.webhook) ctx.webhookStats.record(request.webhook.id, reply.statusCode, ctx.clock(), request.refusal);
    });
    for (const doc of triggerRouteDocs)
      scope.post(fastifyPath(doc.path), (request, reply) => trigger(ctx, request, reply));
  });
}

async function triggerable(ctx: EdgeContext, request: FastifyRequest): Promise<WebhookRecord> {
  const params = WebhookTriggerParams.safeParse(request.params);
  const webhook = params.success ? await ctx.store.webhooks.getRecent(params.data.webhook_id) : null;
  if (!webhook) throw new WfError("NOT_FOUND", "webhook not found");
  if (!webhook.value.enabled) throw new WfError("CONFLICT", `webhook ${webhook.value.id} is disabled`);
  return webhook.value;
}

/**
 * After the hook and the body limit: (HMAC mode) the signature over the body 401 → source address
 * 403 → JSON 400 → owner's account, plan and rate 403/429 → 202 once JetStream has the start. The
 * webhook, owner and workflow are recent reads (store getRecent), the owner and workflow read while
 * the signature is checked.
 * The request counts once authenticated, whatever the answer, against the owner's plan so that a
 * count well within it need not wait (docs/webhooks.md#the-trigger).
 */
async function trigger(ctx: EdgeContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const webhook = request.webhook!;
  const now = ctx.clock();
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const owner = ctx.store.users.getRecent(webhook.ownerId);
  const workflow = ctx.store.workflows.getRecent(webhook.workflowId);
  // Settled later; a refusal must not leave them rejected and unobserved.
  owner.catch(() => undefined);
  workflow.catch(() => undefined);

  const counterId = request.triggerCounter ?? (await signedTrigger(ctx, request, webhook, body, now));
  const counts = owner.then(
    (user) => ctx.counters.count(counterId, now, user ? PLAN_LIMITS[user.value.plan] : undefined),
    () => ctx.counters.count(counterId, now),
  );
  counts.catch(() => undefined);
  try {
    if (!sourceAllowed(webhook.allowedSourceIps, request.ip)) {
      throw new WfError("SOURCE_NOT_ALLOWED", "forbidden: this address may not trigger the webhook");
    }
    const payload = parsePayload(body);

    const user = await owner;
    if (!user) throw new WfError("CONFLICT", `webhook ${webhook.id} has no owner any more`);
    if (user.value.status !== "active")
      throw new WfError("ACCOUNT_INACTIVE", `forbidden: the account that owns this webhook is ${user.value.status}`);
    const plan = user.value.plan;
    if (plan === "free")
      throw new WfError(
        "PLAN_LIMIT",
        "forbidden: webhook triggers need the Pro plan or higher; the webhook owner's plan is free",
      );
    enforcePlanLimit(reply, await counts, plan, now, "triggers");

    const stored = await workflow;
    const role = stored && roleOn(stored.value, webhook.ownerId);
    if (!stored || (role !== "owner" && role !== "editor")) {
      throw new WfError("CONFLICT", `webhook ${webhook.id}: its workflow is gone or its creator may no longer edit it`);
    }
    const w = stored.value;
    const executionId = await startStoredWorkflow(ctx, w, {
      inputs: webhookInputs(payload, webhook.variableMapping, w.definition),
      triggerSource: "webhook",
    });
    void reply.code(202);
    return { executionId, webhookId: webhook.id, workflowId: w.id, status: "PENDING" as const, startedAt: now };
  } catch (err) {
    // Refused once counted: the answer still says where the quota stands, as every counted answer does.
    const [user, settled] = await Promise.all([owner, counts]).catch(() => [null, null] as const);
    if (user && settled && !reply.hasHeader("x-ratelimit-limit")) rateHeaders(reply, settled, user.value.plan, now);
    throw err;
  }
}

/**
 * What is told before the body is read; the webhook's mode decides the credential. Returns what the trigger counts
 * against, the bound key or (open mode) the webhook itself under the owner's plan, or null when (HMAC mode) the
 * signature is well formed and waits for the body.
 */
async function beforeBody(
  ctx: EdgeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  webhook: WebhookRecord,
): Promise<string | null> {
  // Fastify refuses it unread too, but after this hook: told here, a 413 still comes before a 401.
  if (Number(request.headers["content-length"]) > TRIGGER_BODY_LIMIT_BYTES)
    throw new WfError("PAYLOAD_TOO_LARGE", "request body too large: the limit is 1 MB");
  const now = ctx.clock();
  if (webhook.apiKeyId !== null) {
    // A bound key wins over a stored secret: HMAC headers are ignored.
    const credential = extractCredential(request);
    if (credential === null) return refused(ctx, request, "missing", null);
    const check = await verifyKey(ctx.store, credential.value, now);
    if (!check.ok) return refused(ctx, request, check.reason, check.keyId);
    const key = check.key.value;
    if (key.id !== webhook.apiKeyId) return refused(ctx, request, "webhook_key_mismatch", key.id);
    if (!key.scopes.includes("WEBHOOK_TRIGGER")) return refused(ctx, request, "insufficient_scope", key.id);
    ctx.lastUsed.touch(check.key, now);
    return key.id;
  }
  if (webhook.secretKey === null) return webhookCounter(webhook);
  const retryAfterSeconds = ctx.signatureFailures.retryAfterSeconds(webhook.id, request.ip, now);
  if (retryAfterSeconds !== null) {
    await ctx.audit.record({
      at: now,
      reason: "webhook_throttled",
      keyId: null,
      ip: request.ip,
      method: request.method,
      path: pathOf(request),
    });
    void reply.header("retry-after", retryAfterSeconds);
    throw new AnswerError(
      "WEBHOOK_THROTTLED",
      `too many triggers of this webhook with a wrong signature from this address: try again in ${retryAfterSeconds} s`,
      { window: "minute", limit: ctx.signatureFailures.perMinute, retryAfterSeconds },
    );
  }
  const offered = webhook.replayProtection
    ? standardSignaturesOf(standardHeaders(request), now).length > 0
    : legacySignatureOf(single(request.headers["x-webhook-signature"])) !== null;
  return offered ? null : refused(ctx, request, "hmac_mismatch", null);
}

/**
 * HMAC mode, once the body is read: the signature over it. A wrong one counts against the address's budget
 * (signature-failures.ts), a replayed one too.
 */
async function signedTrigger(
  ctx: EdgeContext,
  request: FastifyRequest,
  webhook: WebhookRecord,
  body: Buffer,
  now: number,
): Promise<string> {
  const secret = ctx.secretBox.open(webhook.secretKey!, webhook.id);
  const signed = webhook.replayProtection
    ? await firstSignedSight(ctx, webhook, standardSignatureMatches(secret, body, standardHeaders(request), now))
    : legacySignatureMatches(secret, body, single(request.headers["x-webhook-signature"]));
  if (signed) return webhookCounter(webhook);
  ctx.signatureFailures.fail(webhook.id, request.ip, now);
  return refused(ctx, request, "hmac_mismatch", null);
}

async function firstSignedSight(ctx: EdgeContext, webhook: WebhookRecord, check: StandardCheck): Promise<boolean> {
  return check.ok && (await ctx.replayGuard.firstSight(webhook.id, check.id));
}

function standardHeaders(request: FastifyRequest): StandardHeaders {
  const header = (name: string) => single(request.headers[name]);
  return { id: header("webhook-id"), timestamp: header("webhook-timestamp"), signature: header("webhook-signature") };
}

/** HMAC and open triggers count against a quota of the webhook itself, at its owner's plan. */
function webhookCounter(webhook: WebhookRecord): string {
  return `webhook-${webhook.id}`;
}

/** The webhook's 401, audited as the API's are. */
function refused(ctx: EdgeContext, request: FastifyRequest, reason: AuditReason, keyId: string | null): Promise<never> {
  return refuse(ctx, request, reason, keyId, UNAUTHORIZED);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(" ") : value;
}

/** An empty body is `{}`; anything else must be a JSON object nested at most MAX_JSON_DEPTH deep. */
function parsePayload(body: Buffer): Record<string, unknown> {
  const text = body.toString("utf8");
  if (/^\s*$/.test(text)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    throw new WfError("VALIDATION_FAILED", `invalid JSON body: ${message}`, [{ in: "body", field: "", message }]);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new WfError("VALIDATION_FAILED", "the body must be a JSON object", [
      { in: "body", field: "", message: "the body must be a JSON object" },
    ]);
  }
  const tooDeep = depthError(parsed);
  if (tooDeep) throw tooDeep;
  return parsed as Record<string, unknown>;
}
