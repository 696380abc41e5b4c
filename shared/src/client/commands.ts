import type { JetStreamClient } from "@nats-io/jetstream";
import { WfError } from "../errors/index";
import {
  checkStart,
  definitionJson,
  firstSnapshot,
  inOwnerLane,
  newId,
  recordRoom,
  resultLimits,
  type DebugRequest,
  type StepTestRequest,
  type TriggerSource,
} from "../execution/index";
import { isShared, sharedDefinition } from "../execution/parsed-definitions";
import { StartCommand, type CancelCommand } from "../messages/index";
import { newIdInLane, type LaneChoice } from "../nats/lane-backlog";
import type { StoredDefinitions } from "../nats/stored-definitions";
import { subjects, type Subjects } from "../nats/subjects";
import { retryTransient } from "../nats/transient";
import type { Logger } from "../log/index";
import type { Store } from "../store/port";
import { utf8BytesOver } from "../text/utf8-bytes";

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
  /** A debug run: its breakpoints and idle timeout, carried by the start command. */
  debug?: DebugRequest;
  /** A rerun: the executor takes the states of the steps before `fromStep` from execution `of`. */
  rerun?: { of: string; fromStep: string };
  /** A step test: only `step` runs, in the context of what `contextFrom` recorded before it. */
  stepTest?: StepTestRequest;
}

/**
 * A start command's JSON, its definition's as kept for a shared (frozen) one, as the edge's and the scheduler's are
 * (sharedDefinition): spliced in rather than written out again at every start. A command with 30 KB of definition took
 * 50 µs to write out and encode, 17 µs so (2026-12-05); a light one 1.7-2.0 µs, 1.2 µs so.
 */
export function startCommandJson(cmd: StartCommand & { pending?: boolean }): string {
  const { workflow, ...rest } = cmd;
  const { definition, ...described } = workflow;
  if (!isShared(definition)) return JSON.stringify(cmd);
  // Neither is empty: a workflow has its id, name and owner, a command its execution's id.
  const head = JSON.stringify(described).slice(0, -1);
  const tail = JSON.stringify(rest).slice(1);
  return `{"workflow":${head},"definition":${definitionJson(definition)}},${tail}`;
}

/** How long a failed start's withdrawal, or a started one's list entry, is tried through transient failures. */
const WITHDRAW_RETRY_MS = 60_000;

/**
 * Publishes a start command; durable once this resolves. With a `store`, the inputs are checked first
 * (VALIDATION_FAILED names each bad one) and the execution is stored PENDING before this resolves, the command saying
 * `pending`: a new id is announced (on KV the command, with the definition, is its record) and withdrawn if either
 * write fails (on KV, only if the command's did); a caller's derived id is created first (AlreadyExistsError if it
 * was), its command without the definition (docs/architecture.md#starts-from-the-api-and-webhooks).
 */
export async function startExecution(
  js: CommandPublisher,
  ns: string,
  req: StartRequest,
  opts: {
    store?: Store;
    log?: Pick<Logger, "error">;
    /** Where a shared definition is stored once, its commands naming it (docs/architecture.md). */
    definitions?: StoredDefinitions;
    /**
     * The NATS server's max_payload: with a `store`, a start whose record would leave its steps no room (inputs too
     * large) is refused (leavesRoom).
     */
    maxPayload?: number;
    /** Which of its owner's lanes a new id goes to; without it, the owner's first. */
    lanes?: LaneChoice;
  } = {},
): Promise<string> {
  const executionId = req.executionId ?? newExecutionId(req.workflow.ownerId, opts.lanes);
  const cmd: StartCommand = {
    executionId,
    workflow: req.workflow,
    inputs: req.inputs ?? {},
    triggerSource: req.triggerSource,
    enableMonitoring: req.enableMonitoring ?? false,
    parent: null,
    requestedAt: Date.now(),
    ...(req.debug === undefined ? {} : { debug: req.debug }),
    ...(req.rerun === undefined ? {} : { rerun: req.rerun }),
    ...(req.stepTest === undefined ? {} : { stepTest: { itemIndexes: [], ...req.stepTest } }),
  };
  const subject = subjectsOf(ns).execStart(executionId);
  const { store } = opts;
  if (!store) {
    const workflow = await carriedWorkflow(cmd.workflow, opts.definitions);
    await js.publish(subject, startCommandJson({ ...cmd, workflow }), { msgID: executionId });
    return executionId;
  }
  const parsed = StartCommand.parse(cmd);
  const checked = checkStart(parsed.workflow.definition, parsed.inputs, parsed.workflow.ownerId);
  if (!checked.ok) throw new WfError("VALIDATION_FAILED", checked.error);
  const pending = firstSnapshot(parsed, checked, "PENDING", null);
  if (req.executionId !== undefined) {
    await store.executions.create(pending);
    await js.publish(
      subject,
      JSON.stringify({ ...cmd, pending: true, workflow: { ...cmd.workflow, definition: undefined } }),
      { msgID: executionId },
    );
    return executionId;
  }
  const workflow = await carriedWorkflow({ ...cmd.workflow, definition: pending.definition }, opts.definitions);
  const command = startCommandJson({ ...cmd, workflow, pending: true });
  if (opts.maxPayload !== undefined) leavesRoom(command, opts.maxPayload);
  // Both writes at once: the answer waits for one round trip, not two. Reads and lists need both,
  // and get both before this resolves; an executor that takes the command first writes the
  // record itself, and an announce that lands after that leaves the newer list entry alone.
  const [announced, published] = await Promise.allSettled([
    store.executions.announce(pending),
    js.publish(subject, command, { msgID: executionId }),
  ]);
  const failed = [published, announced].find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed === undefined) return executionId;
  if (published.status === "fulfilled" && store.executions.announcedInCommand) {
    // The stored command is the execution's record: the start has happened, and an executor will run it
    // whatever the caller is told. Withdrawn, it would run without a command to come back to should its
    // executor die. Its list entry is put again meanwhile; the executor's first write lists it anyway.
    void retryTransient(() => store.executions.announce(pending), WITHDRAW_RETRY_MS).catch((e: unknown) =>
      opts.log?.error("a started execution's list entry could not be put; its executor lists it", {
        executionId,
        err: e,
      }),
    );
    return executionId;
  }
  // Withdrawn through a cluster's leader election too, or its list entry would stay PENDING for
  // good; the caller is told at once, without waiting on it.
  void retryTransient(() => store.executions.withdraw(pending), WITHDRAW_RETRY_MS).catch((e: unknown) =>
    opts.log?.error("an execution whose start failed could not be withdrawn", { executionId, err: e }),
  );
  throw failed.reason;
}

function newExecutionId(ownerId: string, lanes: LaneChoice | undefined): string {
  return lanes ? newIdInLane(lanes, ownerId) : inOwnerLane(newId(), ownerId);
}

/**
 * Refuses a start whose command, which holds what its record starts with (its variables, and its definition where
 * not named), already passes the room its record has for variables, definition and step results (recordRoom): no
 * step of it could run, and one too large for a NATS message would not even be written. Refused, it is a 413 that
 * names the inputs, rather than an execution that fails at its first step blaming that step's result.
 */
function leavesRoom(command: string, maxPayload: number): void {
  const room = recordRoom(resultLimits(maxPayload));
  const bytes = utf8BytesOver(command, room);
  if (bytes === undefined) return;
  throw new WfError(
    "PAYLOAD_TOO_LARGE",
    `inputs: the execution would start with ${bytes} bytes in its record, over the ${room} its record has for its ` +
      `inputs, its definition and its steps' results (a share of the NATS server's max_payload, ${maxPayload}); ` +
      `pass large data by reference: a URL, or a file a step reads`,
  );
}

/**
 * The command's workflow: its definition named by reference where it is stored (StoredDefinitions), or else carried
 * shared (sharedDefinition), its JSON kept. A workflow read afresh (not yet the edge's shared copy) is named as well.
 */
async function carriedWorkflow(
  workflow: StartCommand["workflow"],
  definitions: StoredDefinitions | undefined,
): Promise<StartCommand["workflow"]> {
  if (!definitions) return workflow;
  const definition = sharedDefinition(workflow.definition, workflow.ownerId);
  const ref = await definitions.refOf(definition, workflow.ownerId);
  const { definition: _carried, ...described } = workflow;
  return ref === null ? { ...described, definition } : { ...described, definitionRef: ref };
}

export async function cancelExecution(
  js: JetStreamClient,
  ns: string,
  executionId: string,
  reason?: string,
): Promise<void> {
  const cmd: CancelCommand = { executionId, ...(reason ? { reason } : {}) };
  await js.publish(subjects(ns).execCancel(executionId), JSON.stringify(cmd));
}
