import type { z } from "zod";
import { ApiKeyList, ApiKeyView, CreatedApiKey, CreateKeyBody, ErrorBody, IdParams } from "@wf/shared/api";
import { createApiKey, MAX_USABLE_KEYS_PER_USER, revokeApiKey } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import type { ApiKeyRecord } from "@wf/shared/store";
import { defineRoute, type Route } from "../routes/route";

const DAY_MS = 86_400_000;

/** What the console shows of a key: never its secret or the secret's hash. */
export function apiKeyView(k: ApiKeyRecord): z.infer<typeof ApiKeyView> {
  return {
    id: k.id,
    name: k.name,
    scopes: k.scopes,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    lastUsedAt: k.lastUsedAt,
    revoked: k.revokedAt !== null,
    revokedAt: k.revokedAt,
  };
}

/** The user's own API keys, as `wf admin key create|revoke` makes and revokes them. */
export const consoleKeyRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/console/keys",
    operationId: "consoleCreateKey",
    summary: "Create an API key of yours; the answer is the only time the full key is shown",
    tag: "account",
    auth: "console",
    body: CreateKeyBody,
    status: 201,
    responses: {
      201: { description: "Created: `key` is shown here once, never again.", schema: CreatedApiKey },
      409: {
        description: `You hold ${MAX_USABLE_KEYS_PER_USER} usable keys already (neither revoked nor expired): revoke one first.`,
        schema: ErrorBody,
      },
    },
    async handler({ body }, { ctx, consoleUser }) {
      const now = ctx.clock();
      const expiresAt = body.expiresInDays === undefined ? null : now + body.expiresInDays * DAY_MS;
      const { key, record } = await createApiKey(
        ctx.store,
        { ownerId: consoleUser().userId, name: body.name, scopes: body.scopes, expiresAt },
        now,
      );
      return { ...apiKeyView(record), key };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/keys",
    operationId: "consoleListKeys",
    summary: "Your API keys, newest first, revoked ones included (never their secrets)",
    tag: "account",
    auth: "console",
    status: 200,
    responses: { 200: { description: "The keys.", schema: ApiKeyList } },
    async handler(_input, { ctx, consoleUser }) {
      return { items: (await ctx.store.apiKeys.listByOwner(consoleUser().userId)).map(apiKeyView) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/console/keys/{id}",
    operationId: "consoleRevokeKey",
    summary: "Revoke an API key of yours: every edge refuses it from its next request on",
    description: "Revoking a revoked key keeps its first revocation time. The record stays, listed as revoked.",
    tag: "account",
    auth: "console",
    params: IdParams,
    status: 200,
    responses: {
      200: { description: "Revoked.", schema: ApiKeyView },
      404: { description: "No such key of yours.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser }) {
      const key = await ctx.store.apiKeys.get(params.id);
      if (!key || key.value.ownerId !== consoleUser().userId) throw new WfError("NOT_FOUND", `no API key ${params.id}`);
      return apiKeyView(await revokeApiKey(ctx.store, params.id, ctx.clock()));
    },
  }),
];
