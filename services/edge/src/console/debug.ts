import {
  BreakpointsAccepted,
  BreakpointsBody,
  DebugCommandAccepted,
  DebugCommandParams,
  DebugRefusedBody,
  ErrorBody,
  IdParams,
  type DebugRefusal,
} from "@wf/shared/api";
import { sendBreakpoints, sendDebugCommand } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import { DebugCommandBody, TERMINAL_STATUSES } from "@wf/shared/execution";
import { requireWriter, visibleExecution } from "../access/roles";
import { AnswerError } from "../errors";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { breakpointProblems } from "./breakpoint-problems";

const responses = {
  403: {
    description:
      "You only view this workflow (`FORBIDDEN`), the account is inactive, or X-CSRF-Token is missing or wrong.",
    schema: ErrorBody,
  },
  404: { description: "No such execution, or not visible to you.", schema: ErrorBody },
  503: { description: "NATS or the store did not answer; nothing was sent.", schema: ErrorBody },
};

const refused = (reason: DebugRefusal, message: string) => new AnswerError("CONFLICT", message, { reason });

/** The debugger's commands (docs/api.md, Console API): owners and editors of the workflow send them, on any plan. */
export const consoleDebugRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/console/executions/{id}/debug/{command}",
    operationId: "consoleDebugCommand",
    summary: "Answer a debug run's pause: continue, step, step_into, skip, set, retry or abort",
    description:
      "The command first claims the pause on the execution's record (of commands racing for one pause exactly one wins), then goes to the " +
      "executor on `<ns>.cmd.exec.debug.<id>`; 202 means it won and is durable. `pauseId` pins the pause the command answers.",
    tag: "debug",
    auth: "console",
    params: DebugCommandParams,
    body: DebugCommandBody,
    status: 202,
    responses: {
      202: {
        description: "The command won the pause and is on its way to the executor.",
        schema: DebugCommandAccepted,
      },
      ...responses,
      409: {
        description:
          "`reason`: `not_debug` (no debug run), `no_pause` (not paused, or ended), `stale` (pauseId is not the current pause), " +
          "`conflict` (another command won it), `invalid` (the command does not apply to this pause).",
        schema: DebugRefusedBody,
      },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const user = consoleUser();
      const { role } = await visibleExecution(ctx.store, params.id, user.userId);
      requireWriter(role, "debugging an execution");
      const sent = await sendDebugCommand(ctx.publisher, ctx.store, ctx.ns, params.id, body.pauseId, {
        command: params.command,
        body,
        by: user.userId,
      });
      if (sent.ok) return { executionId: params.id, command: params.command, pauseId: sent.claim.pauseId };
      if (sent.reason === "not_found") throw new WfError("NOT_FOUND", sent.message);
      throw refused(sent.reason, sent.message);
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/console/executions/{id}/debug/breakpoints",
    operationId: "consoleSetBreakpoints",
    summary: "Replace a debug run's breakpoints while it runs or waits at a pause",
    description:
      "The change is made on the list at `revision` (the execution view's `breakpointsRevision`), by compare-and-set on the " +
      "execution's record: of changes made on one list exactly one is accepted, and the others are refused (409 `stale`).",
    tag: "debug",
    auth: "console",
    params: IdParams,
    body: BreakpointsBody,
    status: 202,
    responses: {
      202: {
        description: "The change is made: the run applies it from its next breakpoint check on.",
        schema: BreakpointsAccepted,
      },
      ...responses,
      409: {
        description:
          "`reason`: `not_debug` (no debug run), `ended`, or `stale` (the breakpoints were replaced since `revision`: " +
          "read them again and make the change there).",
        schema: DebugRefusedBody,
      },
      503: {
        description:
          "NATS or the store did not answer. The change may have been made (its announcement then comes with the run's " +
          "next write): a retry at the same `revision` is refused as `stale` if it was.",
        schema: ErrorBody,
      },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const user = consoleUser();
      const { execution, role } = await visibleExecution(ctx.store, params.id, user.userId);
      requireWriter(role, "debugging an execution");
      const snapshot = execution.value;
      if (snapshot.debug === null) throw refused("not_debug", `execution ${params.id} is not a debug run`);
      if (TERMINAL_STATUSES.has(snapshot.status))
        throw refused("ended", `execution ${params.id} has ended (${snapshot.status})`);
      const problems = breakpointProblems(snapshot.definition, body.breakpoints, "breakpoints");
      if (problems.length > 0) throw validationError(problems);
      const changed = await sendBreakpoints(ctx.publisher, ctx.store, ctx.ns, params.id, {
        breakpoints: body.breakpoints,
        revision: body.revision,
        by: user.userId,
      });
      if (changed.ok) return { executionId: params.id, breakpoints: changed.breakpoints, revision: changed.revision };
      if (changed.reason === "not_found") throw new WfError("NOT_FOUND", changed.message);
      throw refused(changed.reason, changed.message);
    },
  }),
];
