import { SCOPES } from "@wf/shared/auth";
import { documentRoute } from "../openapi/document-route";
import type { Route, RouteDoc } from "./route";

const V1_INFO = {
  title: "Workflow service API",
  version: "1.0.0",
  description:
    "The v1 API (under /api/v1, API-key authenticated), the signed artifact download, the webhook triggers, and the console " +
    "(login, webhook management: session cookie, and X-CSRF-Token on state-changing requests). " +
    "Every error answer is a JSON object with an `error` message and a stable `code` from the error catalogue " +
    "(components.schemas.ErrorCode lists each with its status and meaning); some add fields (`details`, a 429's window). " +
    "Scopes: " +
    SCOPES.join(", ") +
    ".",
};

/** The v1 document's route: every v1, download, trigger and session route (docs/api.md, The OpenAPI document). */
export function openApiRoute(routes: readonly RouteDoc[]): Route {
  return documentRoute(
    {
      path: "/api/v1/openapi.json",
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI 3.1 document (no API key needed)",
      info: V1_INFO,
    },
    routes,
  );
}
