import { describe, expect, it } from "vitest";
import { startApprovals } from "@wf/approvals";
import { approvalQueues, ensureConsumer, streamNames, timerQueues, triggerQueues } from "@wf/shared/nats";
import { startScheduler } from "@wf/scheduler";
import { startNatsServer, startRuntime, testConfig } from "../support/runtime";

describe("the approvals', the timers' and the scheduler's commands' lane consumers", () => {
  // Made by the version before this bound: each of the 17 consumers with the bound of the single one before the lanes.
  it("share their service's bound on unacknowledged messages, also where an earlier version made them", async () => {
    const server = await startNatsServer();
    const rt = await startRuntime(testConfig(server), { executor: false, scheduler: false, approvals: false });
    const p = rt.platform;
    const services = [
      { stream: streamNames(rt.ns).cmd, queues: approvalQueues(rt.ns), bound: 10_000, share: 588 },
      { stream: streamNames(rt.ns).timer, queues: timerQueues(rt.ns), bound: 1_000_000, share: 58_823 },
      { stream: streamNames(rt.ns).cmd, queues: triggerQueues(rt.ns), bound: 10_000, share: 588 },
    ];
    const bounds = (s: (typeof services)[number]) =>
      Promise.all(s.queues.map(async (q) => (await p.jsm.consumers.info(s.stream, q.durable)).config.max_ack_pending));
    try {
      for (const s of services)
        for (const { durable, filter } of s.queues)
          await ensureConsumer(p.jsm, s.stream, {
            durable,
            filter,
            ackWaitMs: 5_000,
            maxDeliver: -1,
            maxAckPending: s.bound,
          });
      const started = [await startApprovals(p), await startScheduler(p)];
      try {
        for (const s of services) {
          const now = await bounds(s);
          expect(now).toEqual(s.queues.map(() => s.share));
          expect(now.reduce((sum: number, n) => sum + (n ?? 0), 0)).toBeLessThanOrEqual(s.bound);
        }
      } finally {
        for (const service of started) await service.stop();
      }
    } finally {
      await rt.stop();
      await server.stop();
    }
  });
});
