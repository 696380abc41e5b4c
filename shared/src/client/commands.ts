import type { JetStreamClient } from "@nats-io/jetstream";
import { newId, type TriggerSource } from "../execution/index";
import type { CancelCommand, StartCommand } from "../messages/index";
import { subjects } from "../nats/subjects";

export interface StartRequest {
  workflow: StartCommand["workflow"];
  inputs?: Record<string, unknown>;
  triggerSource: TriggerSource;
  enableMonitoring?: boolean;
  executionId?: string;
}

/** Publishes a start command; durable once this resolves (JetStream acknowledged it). */
export async function startExecution(js: JetStreamClient, ns: string, req: StartRequest): Promise<string> {
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
  await js.publish(subjects(ns).execStart(executionId), JSON.stringify(cmd), { msgID: executionId });
  return executionId;
}

export async function cancelExecution(js: JetStreamClient, ns: string, executionId: string, reason?: string): Promise<void> {
  const cmd: CancelCommand = { executionId, ...(reason ? { reason } : {}) };
  await js.publish(subjects(ns).execCancel(executionId), JSON.stringify(cmd));
}
