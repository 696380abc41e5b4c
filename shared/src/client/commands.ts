import type { JetStreamClient } from "@nats-io/jetstream";
import { WfError } from "../errors/index";
import { checkStart, firstSnapshot, newId, type TriggerSource } from "../execution/index";
import { StartCommand, type CancelCommand } from "../messages/index";
import { subjects } from "../nats/subjects";
import type { Store } from "../store/port";

export interface StartRequest {
  workflow: StartCommand["workflow"];
  inputs?: Record<string, unknown>;
  triggerSource: TriggerSource;
  enableMonitoring?: boolean;
  executionId?: string;
}

/**
 * Publishes a start command; durable once this resolves (JetStream acknowledged it). With a
 * `store`, the inputs are checked first (a WfError VALIDATION_FAILED names each bad one) and
 * the execution is written PENDING before the command goes out, so a status read right after
 * finds it (the API's 202 then poll).
 */
export async function startExecution(
  js: JetStreamClient,
  ns: string,
  req: StartRequest,
  opts: { store?: Store } = {},
): Promise<string> {
  const executionId = req.executionId ?? newId();
  const cmd: StartCommand = {
    executionId,
    workflow: req.workflow,
    inputs: req.inputs ?? {},
    triggerSource: req.triggerSource,
    enableMonitoring: req.enableMonitoring ?? false,
    parent: null,
    requestedAt: Date.now(),
  };
  if (opts.store) {
    const parsed = StartCommand.parse(cmd);
    const checked = checkStart(parsed.workflow.definition, parsed.inputs);
    if (!checked.ok) throw new WfError("VALIDATION_FAILED", checked.error);
    await opts.store.executions.create(firstSnapshot(parsed, checked, "PENDING", null));
  }
  await js.publish(subjects(ns).execStart(executionId), JSON.stringify(cmd), { msgID: executionId });
  return executionId;
}

export async function cancelExecution(js: JetStreamClient, ns: string, executionId: string, reason?: string): Promise<void> {
  const cmd: CancelCommand = { executionId, ...(reason ? { reason } : {}) };
  await js.publish(subjects(ns).execCancel(executionId), JSON.stringify(cmd));
}
