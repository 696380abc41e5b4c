import type { z } from "zod";
import type { StartCommand } from "../messages/commands";
import { resolveVariables, type Workflow } from "../workflow/index";
import { parseDefinition, sharedDefinition } from "./parsed-definitions";
import { newDebugState } from "./debug";
import { ZERO_USAGE, type ExecutionSnapshot, type ExecutionStatus, type Holder } from "./snapshot";

export type StartRequestParsed = z.output<typeof StartCommand>;

/** `definition`: the one the execution keeps, shared with every other start of it (sharedDefinition). */
export type CheckedStart =
  | { ok: true; definition: unknown; workflow: Workflow; vars: Record<string, unknown> }
  | { ok: false; definition: unknown; workflow: Workflow | null; error: string };

/**
 * Validates what a start carries: the definition, and the inputs against its variables. The
 * workflow returned may be shared with other starts of the same definition: read it, never change it.
 * `owner`: whose workflow it is (sharedDefinition).
 */
export function checkStart(given: unknown, inputs: Record<string, unknown>, owner: string): CheckedStart {
  const definition = sharedDefinition(given, owner);
  const wf = parseDefinition(definition, owner);
  if (!wf.success) {
    return {
      ok: false,
      definition,
      workflow: null,
      error: `workflow definition is invalid: ${wf.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    };
  }
  const vars = resolveVariables(wf.data, inputs);
  if (!vars.ok) {
    return {
      ok: false,
      definition,
      workflow: wf.data,
      error: `invalid inputs: ${vars.errors.map((e) => `${e.name}: ${e.message}`).join("; ")}`,
    };
  }
  return { ok: true, definition, workflow: wf.data, vars: vars.vars };
}

/** A start naming a definition by a reference under which none is stored: it fails, saying so. */
export function unstoredDefinition(ref: string): CheckedStart {
  return {
    ok: false,
    definition: null,
    workflow: null,
    error: `the workflow definition the start command names (${ref}) is not stored`,
  };
}

/**
 * The first snapshot of an execution: PENDING when a client writes it before publishing the
 * start (so a status poll right after a 202 finds it), RUNNING when the executor that takes the
 * start writes it, FAILED when the start itself is invalid.
 */
export function firstSnapshot(
  cmd: StartRequestParsed,
  checked: CheckedStart,
  status: Extract<ExecutionStatus, "PENDING" | "RUNNING">,
  holder: Holder | null,
  now: number = Date.now(),
): ExecutionSnapshot {
  const failed = !checked.ok;
  return {
    id: cmd.executionId,
    workflowId: cmd.workflow.id,
    workflowName: cmd.workflow.name,
    workflowVersion: cmd.workflow.version,
    ownerId: cmd.workflow.ownerId,
    triggerSource: cmd.triggerSource,
    enableMonitoring: cmd.enableMonitoring,
    status: failed ? "FAILED" : status,
    error: checked.ok ? null : checked.error,
    currentStep: null,
    completedSteps: 0,
    // A step test runs one step: the steps it takes from its context are not its progress.
    totalSteps: checked.workflow ? (cmd.stepTest ? 1 : checked.workflow.steps.length) : 0,
    createdAt: cmd.requestedAt,
    startedAt: status === "PENDING" && !failed ? null : now,
    completedAt: failed ? now : null,
    vars: checked.ok ? checked.vars : {},
    definition: checked.definition,
    steps: {},
    usage: ZERO_USAGE,
    parent: cmd.parent,
    holder: failed ? null : holder,
    cancelRequested: false,
    eventSeq: 0,
    outbox: [],
    debug: cmd.debug ? newDebugState(cmd.debug) : null,
    rerunOf: cmd.rerun?.of ?? null,
    rerunFrom: cmd.rerun?.fromStep ?? null,
    savedUsage: ZERO_USAGE,
    stepTest: cmd.stepTest ?? null,
  };
}
