import {
  ConsoleExecutionView,
  ConsoleStartBody,
  ErrorBody,
  IdParams,
  RateLimitErrorBody,
  StartExecutionResponse,
} from "@wf/shared/api";
import { startableWorkflow, visibleExecution } from "../access/roles";
import { answerRevision, REVISION_DOC, revisionSeen } from "../routes/execution-revision";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { startRequested } from "../start-execution";
import { consoleExecutionView } from "../views/console-execution";
import { breakpointProblems } from "./breakpoint-problems";
import { CONSOLE_RUNS_LIMITED, countConsoleRun } from "./console-runs";
import { staleBase } from "./workflows";

/** Starting and reading executions in the console: any plan may run and debug what it may edit. */
export const consoleExecutionRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/console/workflows/{id}/executions",
    operationId: "consoleStartExecution",
    summary: "Run a stored workflow (triggerSource console), under the debugger when `debug` is sent",
    tag: "executions",
    auth: "console",
    params: IdParams,
    body: ConsoleStartBody,
    status: 202,
    responses: {
      202: {
        description: "Accepted: the execution is stored PENDING and its start command is durable.",
        schema: StartExecutionResponse,
      },
      403: {
        description: "You only view this workflow (or the account is inactive, or X-CSRF-Token is wrong).",
        schema: ErrorBody,
      },
      404: { description: "No such workflow, or not visible to you.", schema: ErrorBody },
      409: {
        description: "`version` is not the stored one: someone saved the workflow since. Nothing started.",
        schema: ErrorBody,
      },
      429: { description: CONSOLE_RUNS_LIMITED, schema: RateLimitErrorBody },
      503: { description: "NATS or the store did not answer; nothing was started.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, consoleUser, reply }) {
      await countConsoleRun(ctx, reply, consoleUser());
      const w = (await startableWorkflow(ctx.store, params.id, consoleUser().userId)).value;
      if (body.version !== undefined && body.version !== w.version)
        throw staleBase(w.id, body.version, w.version, "run");
      if (body.debug) {
        const problems = breakpointProblems(w.definition, body.debug.breakpoints, "debug.breakpoints");
        if (problems.length > 0) throw validationError(problems);
      }
      return startRequested(ctx, w, {
        inputs: body.inputs,
        triggerSource: "console",
        enableMonitoring: body.enableMonitoring,
        ...(body.debug ? { debug: body.debug } : {}),
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/executions/{id}",
    operationId: "consoleGetExecution",
    summary:
      "An execution as the console shows it: status (PAUSED at a breakpoint), steps, pause, breakpoints, edits, definition",
    tag: "executions",
    auth: "console",
    params: IdParams,
    headers: REVISION_DOC,
    status: 200,
    responses: {
      200: { description: "The execution.", schema: ConsoleExecutionView, headers: REVISION_DOC },
      404: { description: "No such execution, or not visible to you.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser, request, reply }) {
      const { execution } = await visibleExecution(ctx.store, params.id, consoleUser().userId, revisionSeen(request));
      answerRevision(reply, execution);
      return consoleExecutionView(execution.value);
    },
  }),
];
