import { consumerNames, ensureConsumer, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";

/**
 * Approval actors. This version owns the durable consumer of approval commands and refuses
 * them plainly: running `manual_approval` is not built yet, and executions that reach one fail
 * with an error that says so, so no approval command is ever expected.
 */
export async function startApprovals(p: Platform): Promise<{ stop(): Promise<void> }> {
  const ns = p.config.WF_NAMESPACE;
  const stream = streamNames(ns).cmd;
  const durable = consumerNames().approvals;
  await ensureConsumer(p.jsm, stream, {
    durable,
    filter: subjects(ns).approvalAll,
    ackWaitMs: 30_000,
    maxDeliver: p.config.WF_EXEC_MAX_DELIVER,
    maxAckPending: 1_000,
  });
  const log = p.log.child({ component: "approvals" });
  const messages = await (await p.js.consumers.get(stream, durable)).consume({ max_messages: 100 });
  const loop = (async () => {
    for await (const m of messages) {
      log.warn("approval command refused: approvals are not available in this version", { subject: m.subject });
      m.term("approvals are not available in this version");
    }
  })();
  return {
    async stop() {
      await messages.close();
      await loop;
    },
  };
}
