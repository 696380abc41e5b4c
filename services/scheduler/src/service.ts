import { consumerNames, ensureConsumer, handleTimerMessage, streamNames } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { startTriggers } from "./triggers";

/**
 * Durable timers: every timer is a message on the TIMER stream that this consumer holds back
 * (`nak` with the time left) until due, then fires (publishes its command) and acknowledges.
 * A timer thus outlives any process, the NATS server included (file storage). Schedules and
 * chained triggers (`triggers.ts`) run beside it, on timers of their own.
 */
export async function startScheduler(p: Platform): Promise<{ stop(): Promise<void> }> {
  const ns = p.config.WF_NAMESPACE;
  const stream = streamNames(ns).timer;
  const durable = consumerNames().timers;
  await ensureConsumer(p.jsm, stream, {
    durable,
    filter: `${ns}.timer.>`,
    // Handling a delivery is short (a nak, or under a second's wait, a publish and an ack). A
    // delivery lost with a killed replica comes back after this: it bounds how late a crash makes a timer.
    ackWaitMs: 5_000,
    maxDeliver: -1,
    // Every pending timer is an unacknowledged message: the limit bounds how many can wait.
    maxAckPending: 1_000_000,
  });
  const log = p.log.child({ component: "scheduler" });
  const consumer = await p.js.consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: 1_000 });
  const triggers = await startTriggers(p, log);
  log.info("scheduler ready");
  const loop = (async () => {
    for await (const m of messages) {
      handleTimerMessage(p.js, m).catch((err: unknown) => {
        log.warn("timer not fired; will retry", { err, subject: m.subject });
        m.nak(1_000);
      });
    }
  })();
  return {
    async stop() {
      await triggers.stop();
      await messages.close();
      await loop;
    },
  };
}
