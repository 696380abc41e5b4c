import { approvalQueues, consumeLanes, streamNames } from "@wf/shared/nats";
import { platformHealth } from "@wf/shared/ops";
import type { Platform } from "@wf/shared/runtime";
import { ApprovalActor } from "./approval-actor";

/** Approval commands handled at once, all lanes together: a burst of timeouts due together is not handled one by one. */
const CONCURRENCY = 64;
const ACK_WAIT_MS = 30_000;
/** Approval commands delivered and not acknowledged yet, all lanes together (588 a consumer). */
const MAX_ACK_PENDING = 10_000;

/**
 * Approval actors: durable consumers of `<ns>.cmd.approvals.<lane>.<verb>.<approvalId>`, one per lane, and of the
 * commands stored before the lanes (`<ns>.cmd.approval.>`), shared by every replica and served in turn under one
 * bound (docs/architecture.md#start-lanes). Decisions (approve, reject from the edge; expire from the timeout timer;
 * cancel from the executor) are settled on the approval record and wake the execution.
 */
export async function startApprovals(p: Platform): Promise<{ stop(): Promise<void> }> {
  const ns = p.config.WF_NAMESPACE;
  const stream = streamNames(ns).cmd;
  const queues = approvalQueues(ns);
  const log = p.log.child({ component: "approvals" });
  const actor = new ApprovalActor({ js: p.js, store: p.store, ns, log });
  const consumer = await consumeLanes({
    js: p.js,
    jsm: p.jsm,
    ns,
    stream,
    queues,
    log,
    // `<ns>.cmd.approvals.<lane>.<verb>.<approvalId>`, or before the lanes `<ns>.cmd.approval.<verb>.<approvalId>`.
    commandOf: (subject) => subject.split(".").at(-2),
    commands: actor.commands(),
    executionOf: (_subject, body) => executionNamedIn(body),
    giveUp: (executionId, reason) => actor.failExecution(executionId, reason),
    concurrency: CONCURRENCY,
    ackWaitMs: ACK_WAIT_MS,
    maxAckPending: MAX_ACK_PENDING,
    maxDeliver: p.config.WF_EXEC_MAX_DELIVER,
    redeliverOnce: p.config.WF_REDELIVER_ONCE,
  });
  for (const { durable } of queues) platformHealth(p).watchConsumer(stream, durable);
  log.info("approvals ready");
  return consumer;
}

/** Every approval command's body names its execution, also one that does not validate otherwise. */
function executionNamedIn(body: unknown): string | undefined {
  const id = (body as { executionId?: unknown } | null)?.executionId;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}
