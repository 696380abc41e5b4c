import { consumeCommands, consumerNames, ensureConsumer, streamNames, subjects } from "@wf/shared/nats";
import { platformHealth } from "@wf/shared/ops";
import type { Platform } from "@wf/shared/runtime";
import { ApprovalActor } from "./approval-actor";

/** Approval commands handled at once: a burst of timeouts due together is not handled one by one. */
const CONCURRENCY = 64;
const ACK_WAIT_MS = 30_000;

/**
 * Approval actors: one durable consumer of `<ns>.cmd.approval.>` shared by every replica.
 * Decisions (approve, reject from the edge; expire from the timeout timer; cancel from the
 * executor) are settled on the approval record and wake the execution.
 */
export async function startApprovals(p: Platform): Promise<{ stop(): Promise<void> }> {
  const ns = p.config.WF_NAMESPACE;
  const stream = streamNames(ns).cmd;
  const durable = consumerNames().approvals;
  await ensureConsumer(p.jsm, stream, {
    durable,
    filter: subjects(ns).approvalAll,
    ackWaitMs: ACK_WAIT_MS,
    maxDeliver: -1,
    maxAckPending: 10_000,
  });
  const log = p.log.child({ component: "approvals" });
  const actor = new ApprovalActor({ js: p.js, store: p.store, ns, log });
  const consumer = await consumeCommands({
    js: p.js,
    jsm: p.jsm,
    ns,
    stream,
    durable,
    log,
    commandOf: (subject) => subject.split(".")[3],
    commands: actor.commands(),
    executionOf: (_subject, body) => executionNamedIn(body),
    giveUp: (executionId, reason) => actor.failExecution(executionId, reason),
    concurrency: CONCURRENCY,
    ackWaitMs: ACK_WAIT_MS,
    maxDeliver: p.config.WF_EXEC_MAX_DELIVER,
    redeliverOnce: p.config.WF_REDELIVER_ONCE,
  });
  platformHealth(p).watchConsumer(stream, durable);
  log.info("approvals ready");
  return consumer;
}

/** Every approval command's body names its execution, also one that does not validate otherwise. */
function executionNamedIn(body: unknown): string | undefined {
  const id = (body as { executionId?: unknown } | null)?.executionId;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}
