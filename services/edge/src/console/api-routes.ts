import type { Route } from "../routes/route";
import { consoleDebugRoutes } from "./debug";
import { consoleEventRoutes } from "./events";
import { consoleExecutionRoutes } from "./executions";
import { rerunRoutes } from "./rerun";

/**
 * The console API beyond login and logout (which v1's document lists too): served under the
 * session, X-CSRF-Token on state-changing requests, and listed in GET /api/console/openapi.json.
 * A console module adds its routes here.
 */
export const consoleApiRoutes: readonly Route[] = [...consoleExecutionRoutes, ...rerunRoutes, ...consoleEventRoutes, ...consoleDebugRoutes];
