import type { JetStreamClient } from "@nats-io/jetstream";
import { WfError } from "../errors/index";
import { checkStart, firstSnapshot, newId, type TriggerSource } from "../execution/index";
import { StartCommand, type CancelCommand } from "../messages/index";
import { subjects, type Subjects } from "../nats/subjects";
import type { Store } from "../store/port";

/**
 * What a start needs of JetStream: nats.js's client, or the store's JetStreamPublisher, which
 * costs a hot path (the edge's) about a third of the CPU per publish.
 */
export interface CommandPublisher {
  publish(subject: string, data: string, opts: { msgID: string }): Promise<unknown>;
}

/** Built once per namespace: `subjects()` makes a dozen closures, too many for every start. */
const subjectsByNs = new Map<string, Subjects>();

function subjectsOf(ns: string): Subjects {
  let known = subjectsByNs.get(ns);
  if (known === undefined) {
    known = subjects(ns);
    subjectsByNs.set(ns, known);
  }
  return known;
}

export interface StartRequest {
  workflow: StartCommand["workflow"];
  inputs?: Record<string, unknown>;
  triggerSource: TriggerSource;
  enableMonitoring?: boolean;
  executionId?: string;
}

/**
 * Publishes a start command; durable once this resolves (JetStream acknowledged it). With a
 * `store`, the inputs are checked first (a WfError VALIDATION_FAILED names each bad one) and the
 * execution is also written PENDING, so a status read right after finds it (the API's 202 then
 * poll); the command then says so and leaves the definition out.
 *
 * The snapshot and the command are sent together and this resolves once both are stored: one
 * round trip where writing the snapshot first cost two, on the webhook's hot path. A command
 * can so be stored without its snapshot, or (over another connection or stream leader) be
 * delivered before it: the executor reads a pending start's snapshot again for longer than a
 * publish waits for its ack, and drops the command only when it never appears, which is when
 * this threw and the caller was told the start failed.
 */
export async function startExecution(
  js: CommandPublisher,
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
    const created = opts.store.executions.create(firstSnapshot(parsed, checked, "PENDING", null));
    const sent: StartCommand = { ...cmd, pending: true, workflow: { ...cmd.workflow, definition: undefined } };
    const published = js.publish(subjectsOf(ns).execStart(executionId), JSON.stringify(sent), { msgID: executionId });
    const [snapshot, command] = await Promise.allSettled([created, published]);
    if (snapshot.status === "rejected") throw snapshot.reason;
    if (command.status === "rejected") throw command.reason;
    return executionId;
  }
  await js.publish(subjectsOf(ns).execStart(executionId), JSON.stringify(cmd), { msgID: executionId });
  return executionId;
}

export async function cancelExecution(js: JetStreamClient, ns: string, executionId: string, reason?: string): Promise<void> {
  const cmd: CancelCommand = { executionId, ...(reason ? { reason } : {}) };
  await js.publish(subjects(ns).execCancel(executionId), JSON.stringify(cmd));
}
