import {
  CreateWebhookBody,
  ErrorBody,
  IdParams,
  UpdateWebhookBody,
  WebhookList,
  WebhookListQuery,
  WebhookStatsView,
  WebhookView,
} from "@wf/shared/api";
import type { Plan } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import { newId } from "@wf/shared/execution";
import type { Store, WebhookRecord } from "@wf/shared/store";
import { requireWriter, visibleWorkflow } from "../access/roles";
import type { ConsoleUser } from "../console/authenticate-session";
import type { EdgeContext } from "../context";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { mappingProblems } from "./variables";
import { modeOf, webhookView } from "./view";

/** Webhooks an account may have (docs/webhooks.md, Managing webhooks); null: no limit. */
const WEBHOOK_LIMITS: Record<Plan, number | null> = { free: 0, pro: 3, team: 10, enterprise: null };

const notFound = (id: string) => new WfError("NOT_FOUND", `webhook ${id} not found`);

/** Webhook management: console session only; a webhook is seen and changed by its creator only. */
export const webhookRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/webhooks",
    operationId: "createWebhook",
    summary: "Create a webhook trigger for a workflow you may edit",
    tag: "webhooks",
    auth: "console",
    body: CreateWebhookBody,
    status: 201,
    responses: {
      201: { description: "The webhook.", schema: WebhookView },
      403: { description: "Plan limit, or only a viewer.", schema: ErrorBody },
    },
    async handler({ body }, { ctx, consoleUser }) {
      const user = consoleUser();
      const { role, workflow } = await visibleWorkflow(ctx.store, body.workflowId, user.userId);
      requireWriter(role, "creating a webhook");
      requireDeclared(body.variableMapping, workflow.value.definition);
      if (body.apiKeyId !== undefined) await requireUsableKey(ctx, body.apiKeyId, user.userId);
      await requireRoomFor(ctx.store, user);
      const now = ctx.clock();
      const id = newId(now);
      const record: WebhookRecord = {
        id,
        ownerId: user.userId,
        workflowId: body.workflowId,
        name: body.name,
        mode: "open",
        apiKeyId: body.apiKeyId ?? null,
        secretKey: body.secretKey === undefined ? null : ctx.secretBox.seal(body.secretKey, id),
        variableMapping: body.variableMapping,
        allowedSourceIps: body.allowedSourceIps,
        enabled: body.enabled,
        replayProtection: body.replayProtection,
        createdAt: now,
        updatedAt: now,
      };
      record.mode = modeOf(record);
      await ctx.store.webhooks.create(record);
      return webhookView(record);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/webhooks",
    operationId: "listWebhooks",
    summary: "List your webhooks, newest first",
    tag: "webhooks",
    auth: "console",
    query: WebhookListQuery,
    status: 200,
    responses: { 200: { description: "One page of webhooks.", schema: WebhookList } },
    async handler({ query }, { ctx, consoleUser }) {
      // An account has at most a plan's handful of webhooks (Enterprise aside): paged in memory.
      const all = await ctx.store.webhooks.listByOwner(consoleUser().userId);
      const items = all.slice((query.page - 1) * query.size, query.page * query.size).map(webhookView);
      return { items, total: all.length, page: query.page, size: query.size };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/webhooks/{id}",
    operationId: "getWebhook",
    summary: "Get one of your webhooks",
    tag: "webhooks",
    auth: "console",
    params: IdParams,
    status: 200,
    responses: {
      200: { description: "The webhook.", schema: WebhookView },
      404: { description: "No such webhook of yours.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser }) {
      return webhookView((await ownWebhook(ctx, params.id, consoleUser())).value);
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/webhooks/{id}",
    operationId: "updateWebhook",
    summary: "Change the fields sent; the others keep their values",
    tag: "webhooks",
    auth: "console",
    params: IdParams,
    body: UpdateWebhookBody,
    status: 200,
    responses: {
      200: { description: "The webhook.", schema: WebhookView },
      404: { description: "No such webhook of yours.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const user = consoleUser();
      if (body.clearApiKeyId && body.apiKeyId !== undefined) {
        throw validationError([{ in: "body", field: "clearApiKeyId", message: "cannot be sent with apiKeyId" }]);
      }
      if (body.clearApiKeyId && body.secretKey === undefined) {
        throw validationError([
          {
            in: "body",
            field: "secretKey",
            message: "clearApiKeyId needs the shared secret re-sent (or null for no verification)",
          },
        ]);
      }
      const current = await ownWebhook(ctx, params.id, user);
      if (body.apiKeyId !== undefined) await requireUsableKey(ctx, body.apiKeyId, user.userId);
      if (body.variableMapping)
        requireDeclared(
          body.variableMapping,
          (await ctx.store.workflows.get(current.value.workflowId))?.value.definition,
        );
      const { clearApiKeyId, secretKey, ...fields } = body;
      const defined = Object.fromEntries(
        Object.entries(fields).filter(([, v]) => v !== undefined),
      ) as Partial<WebhookRecord>;
      const next: WebhookRecord = { ...current.value, ...defined, updatedAt: ctx.clock() };
      if (clearApiKeyId) next.apiKeyId = null;
      if (secretKey !== undefined) next.secretKey = secretKey === null ? null : ctx.secretBox.seal(secretKey, next.id);
      next.mode = modeOf(next);
      await ctx.store.webhooks.update(next, current.version);
      return webhookView(next);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/webhooks/{id}",
    operationId: "deleteWebhook",
    summary: "Delete one of your webhooks",
    tag: "webhooks",
    auth: "console",
    params: IdParams,
    status: 204,
    responses: {
      204: { description: "Deleted." },
      404: { description: "No such webhook of yours.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser }) {
      await ownWebhook(ctx, params.id, consoleUser());
      await ctx.store.webhooks.delete(params.id);
      await ctx.webhookStats.forget(params.id);
      return undefined;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/webhooks/{id}/stats",
    operationId: "getWebhookStats",
    summary: "Trigger statistics of one of your webhooks",
    tag: "webhooks",
    auth: "console",
    params: IdParams,
    status: 200,
    responses: {
      200: { description: "Counts by answer.", schema: WebhookStatsView },
      404: { description: "No such webhook of yours.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser }) {
      await ownWebhook(ctx, params.id, consoleUser());
      return ctx.webhookStats.get(params.id);
    },
  }),
];

async function ownWebhook(ctx: EdgeContext, id: string, user: ConsoleUser) {
  const webhook = await ctx.store.webhooks.get(id);
  if (!webhook || webhook.value.ownerId !== user.userId) throw notFound(id);
  return webhook;
}

function requireDeclared(mapping: Record<string, string> | null, definition: unknown): void {
  const problems = mappingProblems(mapping, definition);
  if (problems.length > 0) throw validationError(problems);
}

/** A key the webhook can be triggered with: the user's own, neither revoked nor expired, with WEBHOOK_TRIGGER. */
async function requireUsableKey(ctx: EdgeContext, apiKeyId: string, userId: string): Promise<void> {
  const key = (await ctx.store.apiKeys.get(apiKeyId))?.value;
  const problem =
    !key || key.ownerId !== userId || key.revokedAt !== null
      ? "must be one of your own API keys, not revoked"
      : key.expiresAt !== null && key.expiresAt <= ctx.clock()
        ? "has expired: bind a key that has not"
        : !key.scopes.includes("WEBHOOK_TRIGGER")
          ? "lacks the WEBHOOK_TRIGGER scope, without which no trigger with it is accepted"
          : null;
  if (problem) throw validationError([{ in: "body", field: "apiKeyId", message: problem }]);
}

/** Counted before the write: two concurrent creates may both pass (at most one webhook over). */
async function requireRoomFor(store: Store, user: ConsoleUser): Promise<void> {
  const limit = WEBHOOK_LIMITS[user.plan];
  if (limit === null) return;
  if (limit === 0)
    throw new WfError(
      "PLAN_LIMIT",
      `forbidden: the ${user.plan} plan includes no webhooks; webhooks need Pro or higher`,
    );
  if ((await store.webhooks.countByOwner(user.userId)) >= limit) {
    throw new WfError("PLAN_LIMIT", `forbidden: the ${user.plan} plan allows ${limit} webhooks, and you have ${limit}`);
  }
}
