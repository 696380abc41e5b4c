import type { z } from "zod";
import { ErrorBody } from "@wf/shared/api";
import type { Scope } from "@wf/shared/auth";
import type { EdgeContext } from "../context";
import { defineRoute, type ResponseDoc, type Route, type RouteDef } from "./route";

/** The two APIs that serve some operations alike: v1 under an API key, the console under the session. */
type Api = "v1" | "console";

/** Prose each API may word its own way: v1 speaks of the key's owner, the console to "you". */
type Worded = string | Record<Api, string>;

/**
 * An operation both APIs serve, declared once. `path` is below each API's root, `operationId` is
 * v1's (the console's prefixes `console`), `scope` is what v1's key needs (the console needs the
 * session); the handler is given the user the request acts for, the key's owner or the session's.
 */
interface TwinDef<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> extends Omit<
  RouteDef<P, Q, B>,
  "path" | "summary" | "auth" | "responses" | "handler"
> {
  path: string;
  summary: Worded;
  scope: Scope;
  responses: Record<number, Omit<ResponseDoc, "description"> & { description: Worded }>;
  handler(
    input: { params: z.output<P>; query: z.output<Q>; body: z.output<B> },
    call: { ctx: EdgeContext; userId: string },
  ): Promise<unknown>;
}

const ROOTS: Record<Api, string> = { v1: "/api/v1", console: "/api/console" };

/** The 403 of a twin that changes things, which a viewer of the workflow may not do. */
export const viewerForbidden = {
  description: {
    v1: "The key's owner only views this workflow (or the account is inactive).",
    console: "You only view this workflow (or the account is inactive, or X-CSRF-Token is wrong).",
  },
  schema: ErrorBody,
};

/** The operation as each API serves and documents it. */
export function defineTwin<
  P extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  B extends z.ZodType = z.ZodUndefined,
>(def: TwinDef<P, Q, B>): Record<Api, Route> {
  const { path, operationId, summary, scope, responses, handler, ...parts } = def;
  const servedBy = (api: Api): Route =>
    defineRoute<P, Q, B>({
      ...parts,
      path: ROOTS[api] + path,
      operationId: api === "v1" ? operationId : `console${operationId[0]!.toUpperCase()}${operationId.slice(1)}`,
      summary: wordedFor(api, summary),
      auth: api === "v1" ? scope : "console",
      responses: Object.fromEntries(
        Object.entries(responses).map(([status, doc]) => [
          status,
          { ...doc, description: wordedFor(api, doc.description) },
        ]),
      ),
      handler: (input, call) =>
        handler(input, { ctx: call.ctx, userId: api === "v1" ? call.caller().userId : call.consoleUser().userId }),
    });
  return { v1: servedBy("v1"), console: servedBy("console") };
}

function wordedFor(api: Api, text: Worded): string {
  return typeof text === "string" ? text : text[api];
}
