import { command, consumeLanes, fireTimer, streamNames, TimerMessage, timerQueues } from "@wf/shared/nats";
import { platformHealth } from "@wf/shared/ops";
import type { Platform } from "@wf/shared/runtime";
import { startRetention } from "./retention";
import { startStrandedSweep } from "./stranded-executions";
import { startStaleRepair } from "./stale-executions";
import { timerFired } from "./timer-metrics";
import { startTriggers } from "./triggers";

const ACK_WAIT_MS = 5_000;
/** Timers handled at once, all lanes together: each holds its message for under a second (TIMER_HOLD_MS) at most. */
const TIMERS_AT_ONCE = 1_000;

/**
 * Durable timers: every timer is a message on the TIMER stream that these consumers hold back until
 * due, then fires (publishes its command) and acknowledges, so a timer outlives any process, the
 * NATS server included. Schedules and chained triggers (`triggers.ts`), retention (`retention.ts`),
 * the repair of failed starts and cut-short writes (`stale-executions.ts`) and the return of executions whose
 * command or timer was lost (`stranded-executions.ts`) run beside it.
 */
export async function startScheduler(p: Platform): Promise<{ stop(): Promise<void> }> {
  const ns = p.config.WF_NAMESPACE;
  const stream = streamNames(ns).timer;
  const queues = timerQueues(ns);
  const log = p.log.child({ component: "scheduler" });
  const triggers = await startTriggers(p, log);
  // One consumer per owner lane (`<ns>.timer.<lane>.<kind>.<id>`) and one of the timers armed before the lanes,
  // served in turn (docs/architecture.md#start-lanes): one owner's timers due together wait in their lane.
  const timers = await consumeLanes({
    js: p.js,
    jsm: p.jsm,
    ns,
    stream,
    queues,
    log,
    commandOf: () => "timer",
    commands: {
      timer: command(TimerMessage, async (timer, m) => {
        const handled = await fireTimer(p.js, timer);
        if (handled === undefined) timerFired(m.subject, timer.dueAt);
        return handled;
      }),
    },
    // Every pending timer is held unacknowledged, most of them waiting (`nak`ed) on the server.
    concurrency: TIMERS_AT_ONCE,
    // Handling a delivery is short (a nak, or under a second's wait, a publish and an ack). A
    // delivery lost with a killed replica comes back after this: it bounds how late a crash makes a timer.
    ackWaitMs: ACK_WAIT_MS,
    // Every timer published and not fired yet is an unacknowledged message, all of them on servers without message
    // schedules: a lane holds at most 58,823 (1,000,000 over the 17 queues), one owner's past that waiting undelivered.
    maxAckPending: 1_000_000,
    // Never given up: a due timer's command not published means NATS is unwell, and a lost timer
    // leaves an execution parked or an approval open for good.
    maxDeliver: Number.POSITIVE_INFINITY,
    redeliverOnce: false,
  });
  for (const { durable } of queues) platformHealth(p).watchConsumer(stream, durable);
  const retention = startRetention(p, log);
  const staleRepair = startStaleRepair(p, log);
  const stranded = startStrandedSweep(p, log);
  log.info("scheduler ready");
  return {
    async stop() {
      await retention.stop();
      await staleRepair.stop();
      await stranded.stop();
      await triggers.stop();
      await timers.stop();
    },
  };
}
