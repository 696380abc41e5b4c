import { consoleApprovalRoutes } from "../routes/approvals";
import type { Route } from "../routes/route";
import { consoleAccountRoutes } from "./account";
import { consoleDebugRoutes } from "./debug";
import { consoleEventRoutes } from "./events";
import { consoleExecutionListRoutes } from "./execution-list";
import { consoleExecutionRoutes } from "./executions";
import { consoleKeyRoutes } from "./keys";
import { rerunRoutes } from "./rerun";
import { consoleSecretRoutes } from "./secrets";
import { stepTestRoutes } from "./step-tests";
import { consoleUsageRoutes } from "./usage";
import { consoleWorkflowLayoutRoutes } from "./workflow-layout";
import { consoleWorkflowPinRoutes } from "./workflow-pins";
import { consoleWorkflowRoutes } from "./workflows";

/**
 * The console API beyond login and logout (which v1's document lists too): served under the
 * session, X-CSRF-Token on state-changing requests, and listed in GET /api/console/openapi.json.
 * A console module adds its routes here.
 */
export const consoleApiRoutes: readonly Route[] = [
  ...consoleExecutionRoutes,
  ...rerunRoutes,
  ...stepTestRoutes,
  ...consoleEventRoutes,
  ...consoleDebugRoutes,
  ...consoleExecutionListRoutes,
  ...consoleApprovalRoutes,
  ...consoleWorkflowRoutes,
  ...consoleWorkflowLayoutRoutes,
  ...consoleWorkflowPinRoutes,
  ...consoleKeyRoutes,
  ...consoleSecretRoutes,
  ...consoleAccountRoutes,
  ...consoleUsageRoutes,
];
