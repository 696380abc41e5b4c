import { documentRoute } from "../openapi/document-route";
import type { Route, RouteDoc } from "../routes/route";

const CONSOLE_INFO = {
  title: "Workflow service console API",
  version: "1.0.0",
  description:
    "The console's API: log in (POST /api/console/login) for the session cookie and a CSRF token, then run, debug and follow " +
    "executions, rerun them, and manage webhooks. Every console request needs the session cookie (API keys are not accepted); " +
    "every state-changing one (POST, PUT, DELETE) also needs X-CSRF-Token. " +
    "Every error answer is a JSON object with an `error` message and a stable `code` from the error catalogue " +
    "(components.schemas.ErrorCode lists each with its status and meaning); a 400 adds `details`, one problem per field.",
};

/** The console document's route: the session routes and the console API (docs/api.md, Console API). */
export function consoleOpenApiRoute(routes: readonly RouteDoc[]): Route {
  return documentRoute(
    {
      path: "/api/console/openapi.json",
      operationId: "getConsoleOpenApiDocument",
      summary: "This OpenAPI 3.1 document (no session needed)",
      info: CONSOLE_INFO,
    },
    routes,
  );
}
