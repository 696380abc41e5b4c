import { approvalLinkDocs } from "../approval-link/link-doc";
import { consoleApiRoutes } from "../console/api-routes";
import { consoleOpenApiRoute } from "../console/openapi";
import { consoleRoutes } from "../console/routes";
import { webhookRoutes } from "../webhooks/routes";
import { triggerRouteDocs } from "../webhooks/trigger-doc";
import { approvalRoutes } from "./approvals";
import { artifactRoutes } from "./artifacts";
import { downloadRoutes } from "./downloads";
import { executionRoutes } from "./executions";
import { openApiRoute } from "./openapi";
import type { Route, RouteDoc } from "./route";
import { workflowRoutes } from "./workflows";

const resourceRoutes: readonly Route[] = [
  ...workflowRoutes,
  ...executionRoutes,
  ...approvalRoutes,
  ...artifactRoutes,
  ...downloadRoutes,
];

/** The console-session routes v1's document lists: login, logout, webhook management. */
export const sessionRoutes: readonly Route[] = [...consoleRoutes, ...webhookRoutes];

/**
 * What the OpenAPI document lists besides itself: the table routes, the webhook trigger and the
 * one-click approval link, which are not table routes (each reads its body in its own scope:
 * raw bytes, an HTML form).
 */
const documented: readonly RouteDoc[] = [...resourceRoutes, ...sessionRoutes, ...triggerRouteDocs, ...approvalLinkDocs];

/** Every API-key, signed-URL and public route, the OpenAPI document's own included. */
export const apiRoutes: readonly Route[] = [...resourceRoutes, openApiRoute(documented)];

/** The console API (console/api-routes.ts) and its own document, which lists it after the session routes. */
export const consoleApi: readonly Route[] = [
  ...consoleApiRoutes,
  consoleOpenApiRoute([...sessionRoutes, ...consoleApiRoutes]),
];
