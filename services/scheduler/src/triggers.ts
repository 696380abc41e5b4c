import { ExecutionEvent } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { consumerNames, ensureConsumer, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { Chains, END_EVENTS, type EndEventType } from "./chains";
import { SchedulerCommand } from "./commands";
import { consumeEach } from "./consume";
import { Schedules } from "./schedules";

/** A few store reads and writes per message; a message lost with a killed replica returns after this. */
const ACK_WAIT_MS = 10_000;

/**
 * Schedules and chained triggers: the consumer of the scheduler's own commands (`cmd.sched.>`,
 * sent by its timers), one consumer per kind of execution end on EVT, and the schedule scan.
 * Every replica runs all of them; the consumers are shared, so each message is handled once.
 */
export async function startTriggers(p: Platform, log: Logger): Promise<{ stop(): Promise<void> }> {
  const ns = p.config.WF_NAMESPACE;
  const streams = streamNames(ns);
  const names = consumerNames();
  const schedules = new Schedules(p, log);
  const chains = new Chains(p);

  await ensureConsumer(p.jsm, streams.cmd, {
    durable: names.scheduler,
    filter: subjects(ns).schedAll,
    ackWaitMs: ACK_WAIT_MS,
    maxDeliver: -1,
    maxAckPending: 10_000,
  });
  const commands = await consumeEach(p, log, {
    stream: streams.cmd,
    durable: names.scheduler,
    schema: SchedulerCommand,
    handle: (cmd) => (cmd.kind === "tick" ? schedules.tick(cmd) : chains.fire(cmd)),
  });

  const ends = await Promise.all(
    (Object.keys(END_EVENTS) as EndEventType[]).map(async (type) => {
      const durable = names.chainEnds(type);
      // From now on: a scheduler installed on a running service does not chain past ends.
      await ensureConsumer(p.jsm, streams.evt, {
        durable,
        filter: subjects(ns).eventFilter({ type }),
        ackWaitMs: ACK_WAIT_MS,
        maxDeliver: -1,
        maxAckPending: 10_000,
        fromNew: true,
      });
      return consumeEach(p, log, { stream: streams.evt, durable, schema: ExecutionEvent, handle: (e) => chains.ended(e, type) });
    }),
  );

  const scan = startScan(schedules, p.config.WF_SCHEDULE_SCAN_MS, log);
  await scan.first;
  return {
    async stop() {
      await scan.stop();
      await Promise.all([commands, ...ends].map((c) => c.stop()));
    },
  };
}

/** Scans at once, then every `intervalMs` until stopped; a failed scan is logged and retried then. */
function startScan(schedules: Schedules, intervalMs: number, log: Logger) {
  let stopped = false;
  let wake = () => {};
  const once = () =>
    schedules.scan().catch((err: unknown) => {
      log.warn("schedule scan failed; retried in the next interval", { err });
    });
  const first = once();
  const loop = (async () => {
    await first;
    while (!stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!stopped) await once();
    }
  })();
  return {
    first,
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
