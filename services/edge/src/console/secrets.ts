import { ErrorBody, PutSecretBody, SecretList, SecretNameParams, SecretView } from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import { isErrorCode } from "@wf/shared/errors";
import { SecretsReply, type SecretsRequest } from "@wf/shared/messages";
import { subjects } from "@wf/shared/nats";
import type { EdgeContext } from "../context";
import { defineRoute, type Route } from "../routes/route";

/**
 * The user's own secrets, as `wf admin secret set|list|delete` keeps them: sealed under the
 * executors' key (WF_SECRETS_KEY, else keys.json) with `<ownerId>/<name>` as associated data, and
 * never answered back. The edge holds neither that key nor read access to the sealed records: it
 * asks an executor (`<ns>.svc.secrets`).
 */
export const consoleSecretRoutes: Route[] = [
  defineRoute({
    method: "PUT",
    path: "/api/console/secrets/{name}",
    operationId: "consolePutSecret",
    summary: "Create or replace a secret of yours, read in your workflows as {{ secrets.<name> }}",
    description:
      "The value is sealed before it is stored and is never shown again; executions mask it as *** in results, events and logs.",
    tag: "account",
    auth: "console",
    params: SecretNameParams,
    body: PutSecretBody,
    status: 200,
    responses: { 200: { description: "Set (the name and times, never the value).", schema: SecretView } },
    async handler({ params, body }, { ctx, consoleUser }) {
      const reply = await askExecutors(ctx, {
        op: "set",
        ownerId: consoleUser().userId,
        name: params.name,
        value: body.value,
        at: ctx.clock(),
      });
      if (!reply.secret) throw new WfError("UNAVAILABLE", "the executor's answer held no secret; try again");
      return reply.secret;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/secrets",
    operationId: "consoleListSecrets",
    summary: "Your secrets' names and when each was created and last set; never their values",
    tag: "account",
    auth: "console",
    status: 200,
    responses: { 200: { description: "The secrets, by name.", schema: SecretList } },
    async handler(_input, { ctx, consoleUser }) {
      return { items: (await askExecutors(ctx, { op: "list", ownerId: consoleUser().userId })).secrets ?? [] };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/console/secrets/{name}",
    operationId: "consoleDeleteSecret",
    summary: "Delete a secret of yours: executions that read it afterwards see it missing",
    tag: "account",
    auth: "console",
    params: SecretNameParams,
    status: 204,
    responses: {
      204: { description: "Deleted." },
      404: { description: "You have no secret of that name.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser }) {
      const reply = await askExecutors(ctx, { op: "delete", ownerId: consoleUser().userId, name: params.name });
      if (!reply.deleted) throw new WfError("NOT_FOUND", `you have no secret ${params.name}`);
      return undefined;
    },
  }),
];

/** How long an executor may take to answer a secrets request. */
const SECRETS_TIMEOUT_MS = 5_000;

async function askExecutors(ctx: EdgeContext, req: SecretsRequest): Promise<Extract<SecretsReply, { ok: true }>> {
  let data: unknown;
  try {
    data = (
      await ctx.nc.request(subjects(ctx.ns).secrets, JSON.stringify(req), { timeout: SECRETS_TIMEOUT_MS })
    ).json();
  } catch {
    throw new WfError(
      "UNAVAILABLE",
      "no executor answered: secrets are kept by the executors, and none is running or reachable; try again once one is",
    );
  }
  const reply = SecretsReply.safeParse(data);
  if (!reply.success)
    throw new WfError("UNAVAILABLE", "an executor answered something else than a secrets reply; try again");
  if (!reply.data.ok)
    throw new WfError(isErrorCode(reply.data.code) ? reply.data.code : "UNAVAILABLE", reply.data.error);
  return reply.data;
}
