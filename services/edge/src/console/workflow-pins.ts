import {
  ConsolePin,
  ErrorBody,
  MAX_PIN_BYTES,
  MAX_WORKFLOW_PINS_BYTES,
  PinBody,
  PinParams,
  ValidationErrorBody,
} from "@wf/shared/api";
import { type RecordTooLargeError, WfError } from "@wf/shared/errors";
import type { WorkflowRecord } from "@wf/shared/store";
import { parseWorkflow } from "@wf/shared/workflow";
import { visibleExecution } from "../access/roles";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { updateBesideYaml } from "./beside-yaml";

type Pins = NonNullable<WorkflowRecord["pins"]>;

/**
 * Outputs pinned to a workflow's top-level steps, for step tests to take instead of running
 * them (docs/console.md, Pinned data). Kept on the workflow record beside `layout`, never in the
 * YAML: a change is not a new version, and a production run never reads them.
 */
export const consoleWorkflowPinRoutes: Route[] = [
  defineRoute({
    method: "PUT",
    path: "/api/console/workflows/{id}/pins/{step}",
    operationId: "consolePinStepOutput",
    summary: "Pin an output to a top-level step of a workflow: step tests of later steps take it instead of running it",
    description:
      `Replaces the step's pin. \`step\` must be a top-level step of the latest saved version. A pin's output is at most ${MAX_PIN_BYTES / 1024} KiB ` +
      `as JSON, a workflow's pins ${MAX_WORKFLOW_PINS_BYTES / 1024} KiB together; pins of steps the saved version no longer has are dropped. ` +
      "The workflow's version does not change, and runs other than step tests ignore pins.",
    tag: "workflows",
    auth: "console",
    params: PinParams,
    body: PinBody,
    status: 200,
    responses: {
      200: { description: "The pin now stored.", schema: ConsolePin },
      400: {
        description: "`step` is not a top-level step of the saved workflow (the message lists them), or a bad body.",
        schema: ValidationErrorBody,
      },
      403: { description: "You only view this workflow (or X-CSRF-Token is wrong).", schema: ErrorBody },
      404: {
        description: "No such workflow, or not visible to you; or `from` is no execution of it that you see.",
        schema: ErrorBody,
      },
      413: {
        description:
          "The output, or the workflow's pins with it, are over their limit; or the workflow's record has no room for " +
          "them, even without its earlier versions.",
        schema: ErrorBody,
      },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const { userId } = consoleUser();
      const bytes = jsonBytes(body.output);
      if (bytes > MAX_PIN_BYTES)
        throw new WfError(
          "PAYLOAD_TOO_LARGE",
          `the pinned output is ${bytes} bytes as JSON; a pin may have at most ${MAX_PIN_BYTES} (${MAX_PIN_BYTES / 1024} KiB)`,
        );
      const from = body.from ?? null;
      const pin = { output: body.output, pinnedAt: Date.now(), from };
      const names = { doing: "pinning a step's output", stored: "its pins were", tooLarge: noRoomForPins };
      return await updateBesideYaml(ctx, params.id, userId, names, async (w) => {
        const names = topLevelSteps(w);
        if (!names.includes(params.step))
          throw validationError([
            {
              in: "path",
              field: "step",
              message: `no top-level step \`${params.step}\` in the saved workflow; save it first, or name one of: ${names.join(", ")}`,
            },
          ]);
        if (from !== null) {
          const source = (await visibleExecution(ctx.store, from, userId)).execution.value;
          if (source.workflowId !== w.id || source.ownerId !== w.ownerId)
            throw new WfError("NOT_FOUND", `execution ${from} not found`);
        }
        const kept = Object.entries(w.pins ?? {}).filter(([name]) => name !== params.step && names.includes(name));
        const pins: Pins = Object.fromEntries([...kept, [params.step, pin]]);
        const total = jsonBytes(pins);
        if (total > MAX_WORKFLOW_PINS_BYTES)
          throw new WfError(
            "PAYLOAD_TOO_LARGE",
            `the workflow's pins would be ${total} bytes as JSON; they may have at most ${MAX_WORKFLOW_PINS_BYTES} (${MAX_WORKFLOW_PINS_BYTES / 1024} KiB) together: unpin another step first`,
          );
        return { fields: { pins }, answer: pin };
      });
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/console/workflows/{id}/pins/{step}",
    operationId: "consoleUnpinStep",
    summary: "Remove a step's pin: step tests run against recorded outputs again",
    tag: "workflows",
    auth: "console",
    params: PinParams,
    status: 204,
    responses: {
      204: { description: "Unpinned (or the step had no pin)." },
      403: { description: "You only view this workflow (or X-CSRF-Token is wrong).", schema: ErrorBody },
      404: { description: "No such workflow, or not visible to you.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser }) {
      const names = { doing: "unpinning a step", stored: "its pins were" };
      await updateBesideYaml(ctx, params.id, consoleUser().userId, names, (w) => {
        const pins = { ...w.pins };
        delete pins[params.step];
        return Promise.resolve({ fields: { pins }, answer: undefined });
      });
      return undefined;
    },
  }),
];

/** Pins that would take a workflow's record past the store's limit, though it keeps no earlier version any more. */
function noRoomForPins(err: RecordTooLargeError): WfError {
  return new WfError(
    "PAYLOAD_TOO_LARGE",
    `the workflow's record has no room for its pins: with them it would take ${err.bytes} bytes, over the ` +
      `${err.limit} it may take (the NATS server's max_payload); unpin other steps, pin a smaller output, or make ` +
      `the workflow smaller`,
  );
}

function topLevelSteps(w: WorkflowRecord): string[] {
  const parsed = parseWorkflow(w.yaml);
  return parsed.ok ? parsed.workflow.steps.map((s) => s.name) : [];
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}
