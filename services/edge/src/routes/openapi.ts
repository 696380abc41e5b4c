import { openApiDocument } from "../openapi/document";
import { defineRoute, type Route, type RouteDoc } from "./route";

/** The document route: built once from every route (itself included), served without a key. */
export function openApiRoute(routes: readonly RouteDoc[]): Route {
  let document: unknown;
  const self = defineRoute({
    method: "GET",
    path: "/api/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI 3.1 document (no API key needed)",
    tag: "meta",
    auth: "public",
    status: 200,
    responses: { 200: { description: "The OpenAPI document." } },
    async handler() {
      document ??= openApiDocument([...routes, self]);
      return document;
    },
  });
  return self;
}
