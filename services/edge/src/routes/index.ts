import { approvalRoutes } from "./approvals";
import { artifactRoutes } from "./artifacts";
import { downloadRoutes } from "./downloads";
import { executionRoutes } from "./executions";
import { openApiRoute } from "./openapi";
import type { Route } from "./route";
import { workflowRoutes } from "./workflows";

const resourceRoutes: readonly Route[] = [...workflowRoutes, ...executionRoutes, ...approvalRoutes, ...artifactRoutes, ...downloadRoutes];

/** Every route the edge serves, the OpenAPI document's own included. */
export const apiRoutes: readonly Route[] = [...resourceRoutes, openApiRoute(resourceRoutes)];
