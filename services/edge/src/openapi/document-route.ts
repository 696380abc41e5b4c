import { defineRoute, type Route, type RouteDoc } from "../routes/route";
import { openApiDocument, type DocumentInfo } from "./document";

/**
 * A document's own route: built once, on its first request, from its routes (itself included); served without a
 * credential.
 */
export function documentRoute(
  def: { path: string; operationId: string; summary: string; info: DocumentInfo },
  routes: readonly RouteDoc[],
): Route {
  let document: unknown;
  const self = defineRoute({
    method: "GET",
    path: def.path,
    operationId: def.operationId,
    summary: def.summary,
    tag: "meta",
    auth: "public",
    status: 200,
    responses: { 200: { description: "The OpenAPI document." } },
    async handler() {
      document ??= openApiDocument(def.info, [...routes, self]);
      return document;
    },
  });
  return self;
}
