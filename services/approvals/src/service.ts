import { consumerNames, ensureConsumer, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { ApprovalActor } from "./approval-actor";

/** Approval commands handled at once: a burst of timeouts due together is not handled one by one. */
const CONCURRENCY = 64;

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
    ackWaitMs: 30_000,
    maxDeliver: -1,
    maxAckPending: 10_000,
  });
  const log = p.log.child({ component: "approvals" });
  const actor = new ApprovalActor({
    js: p.js,
    store: p.store,
    ns,
    log,
    maxDeliver: p.config.WF_EXEC_MAX_DELIVER,
    redeliverOnce: p.config.WF_REDELIVER_ONCE,
  });
  const messages = await (await p.js.consumers.get(stream, durable)).consume({ max_messages: CONCURRENCY * 2 });
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    for await (const m of messages) {
      const handled = actor.handle(m).finally(() => inFlight.delete(handled));
      inFlight.add(handled);
      if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
    }
  })();
  log.info("approvals ready");
  return {
    async stop() {
      await messages.close();
      await loop;
      await Promise.all(inFlight);
    },
  };
}
