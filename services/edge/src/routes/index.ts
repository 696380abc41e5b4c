import { consoleRoutes } from "../console/routes";
import { webhookRoutes } from "../webhooks/routes";
import { approvalRoutes } from "./approvals";
import { artifactRoutes } from "./artifacts";
import { downloadRoutes } from "./downloads";
import { executionRoutes } from "./executions";
import { openApiRoute } from "./openapi";
import type { Route } from "./route";
import { workflowRoutes } from "./workflows";

const resourceRoutes: readonly Route[] = [...workflowRoutes, ...executionRoutes, ...approvalRoutes, ...artifactRoutes, ...downloadRoutes];

/** Every API-key, signed-URL and public route, the OpenAPI document's own included. */
export const apiRoutes: readonly Route[] = [...resourceRoutes, openApiRoute(resourceRoutes)];

/**
 * The console-session routes (login, logout, webhook management): outside the OpenAPI
 * document, whose generator knows only API keys and signed URLs. The webhook trigger is not a
 * table route: it reads raw bytes in its own scope (webhooks/trigger.ts).
 */
export const sessionRoutes: readonly Route[] = [...consoleRoutes, ...webhookRoutes];
