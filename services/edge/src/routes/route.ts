import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Scope } from "@wf/shared/auth";
import type { Caller } from "../auth/caller";
import type { ConsoleUser } from "../console/authenticate-session";
import type { EdgeContext } from "../context";
import { parseRequestParts } from "./validate";

/**
 * How a route is authenticated: an API key with this scope, a signed URL (the artifact
 * download), a console session cookie (console and webhook management), the credential the
 * webhook's mode asks for (the trigger: a bound API key, an HMAC signature, or none), or
 * nothing (the OpenAPI document, the console login).
 */
export type RouteAuth = Scope | "signed-url" | "console" | "webhook" | "public";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /** Set by the authentication hook on API-key routes. */
    caller: Caller | null;
    /** Set by the authentication hook on console-session routes. */
    consoleUser: ConsoleUser | null;
  }
}

export interface ResponseDoc {
  description: string;
  /**
   * JSON body schema; absent for a file body (`binary`), an HTML page (`html`) or Server-Sent Events (`eventStream`).
   */
  schema?: z.ZodType;
  binary?: boolean;
  html?: boolean;
  /** Server-Sent Events whose `data:` lines are each one JSON value of this schema. */
  eventStream?: z.ZodType;
  /** Headers of this answer beyond the common ones (rate limits). */
  headers?: Record<string, HeaderDoc>;
}

/** A request or response header, as the OpenAPI document describes it. */
export interface HeaderDoc {
  description: string;
  schema: { type: "integer" | "string" };
}

export interface Call {
  request: FastifyRequest;
  reply: FastifyReply;
  ctx: EdgeContext;
  /** The authenticated caller of an API-key route. */
  caller(): Caller;
  /** The session user of a console route. */
  consoleUser(): ConsoleUser;
}

export interface RouteDef<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** OpenAPI form: `/api/v1/workflows/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Prose for the OpenAPI document beyond the summary. */
  description?: string;
  tag: string;
  auth: RouteAuth;
  params?: P;
  query?: Q;
  /** Optional request headers the route reads, by name, for the OpenAPI document. */
  headers?: Record<string, HeaderDoc>;
  /** Every body is optional: a missing body is parsed as `{}`. */
  body?: B;
  /** The body comes from an HTML form (application/x-www-form-urlencoded), not as JSON. */
  formBody?: boolean;
  /** The success status, set before the handler runs (which may change it, e.g. to 206). */
  status: number;
  /** The success answer and the route's own errors; the common ones (400, 401, 403, 413, 415, 429) are implied. */
  responses: Record<number, ResponseDoc>;
  handler(input: { params: z.output<P>; query: z.output<Q>; body: z.output<B> }, call: Call): Promise<unknown>;
}

/** A route with its types erased, as the registry and the OpenAPI generator hold it. */
export type Route = RouteDef<z.ZodType, z.ZodType, z.ZodType>;

/** What the OpenAPI document says of a route; routes served outside the table (the trigger) have only this. */
export type RouteDoc = Omit<Route, "handler">;

/** Keeps the route's part types tied to its handler, then erases them. */
export function defineRoute<
  P extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  B extends z.ZodType = z.ZodUndefined,
>(def: RouteDef<P, Q, B>): Route {
  return def as unknown as Route;
}

export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

export function registerRoutes(app: FastifyInstance, routes: readonly Route[], ctx: EdgeContext): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: fastifyPath(route.path),
      config: { auth: route.auth },
      handler: async (request, reply) => {
        const input = parseRequestParts(route, request);
        void reply.code(route.status);
        const call: Call = {
          request,
          reply,
          ctx,
          caller: () => {
            if (!request.caller) throw new Error(`route ${route.operationId} has no authenticated caller`);
            return request.caller;
          },
          consoleUser: () => {
            if (!request.consoleUser) throw new Error(`route ${route.operationId} has no console session`);
            return request.consoleUser;
          },
        };
        return route.handler(input, call);
      },
    });
  }
}
