import { ExecutionEvent } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import {
  command,
  consumeCommands,
  consumeLanes,
  consumerNames,
  ensureConsumer,
  isNotFound,
  streamNames,
  subjects,
  triggerQueues,
  type CommandConsumerOptions,
} from "@wf/shared/nats";
import { platformHealth } from "@wf/shared/ops";
import type { Platform } from "@wf/shared/runtime";
import { startChainEnds } from "./chain-ends";
import { Chains } from "./chains";
import { ChainEndCommand, ChainFireCommand, END_EVENTS, TickCommand, type EndEventType } from "./commands";
import { Schedules } from "./schedules";
import { StartBudget } from "./start-budget";

/** A few store reads and writes per message; a message lost with a killed replica returns after this. */
const ACK_WAIT_MS = 10_000;
/** Messages handled at once by each consumer of execution ends, and by the trigger lanes' consumers together. */
const CONCURRENCY = 256;

/**
 * Schedules and chained triggers: the consumers of the scheduler's own commands (`cmd.triggers.<lane>.>`,
 * sent by its timers), one consumer per kind of execution end on EVT once a workflow has a
 * chained trigger (chain-ends.ts), and the schedule scan. Every replica runs all of them; the
 * consumers are shared, so each message is handled once.
 */
export async function startTriggers(p: Platform, log: Logger): Promise<{ stop(): Promise<void> }> {
  const ns = p.config.WF_NAMESPACE;
  const streams = streamNames(ns);
  const names = consumerNames();
  const budget = await StartBudget.open(p, log);
  const schedules = new Schedules(p, budget, log);
  const chains = new Chains(p, budget, log);
  const endTypes = Object.keys(END_EVENTS) as EndEventType[];

  const consume = async (
    stream: string,
    durable: string,
    commandOf: (subject: string) => string | undefined,
    commands: CommandConsumerOptions["commands"],
  ) => {
    const consumer = await consumeCommands({
      js: p.js,
      jsm: p.jsm,
      ns,
      stream,
      durable,
      log,
      commandOf,
      commands,
      concurrency: CONCURRENCY,
      ackWaitMs: ACK_WAIT_MS,
      maxDeliver: p.config.WF_EXEC_MAX_DELIVER,
      redeliverOnce: p.config.WF_REDELIVER_ONCE,
    });
    platformHealth(p).watchConsumer(stream, durable);
    return consumer;
  };
  // One consumer per owner lane (`<ns>.cmd.triggers.<lane>.<tick|chain>.<workflow>`) and one of the commands stored
  // before the lanes, served in turn (docs/architecture.md#start-lanes): one owner's ticks and chained runs due
  // together wait in their lane, as their timers did.
  const queues = triggerQueues(ns);
  const commands = await consumeLanes({
    js: p.js,
    jsm: p.jsm,
    ns,
    stream: streams.cmd,
    queues,
    log,
    commandOf: (subject) => subject.split(".").at(-2),
    commands: {
      tick: command(TickCommand, (cmd) => schedules.tick(cmd)),
      chain: command(ChainFireCommand, (cmd) => chains.fire(cmd)),
      end: command(ChainEndCommand, (e) => chains.ended(e)),
    },
    concurrency: CONCURRENCY,
    ackWaitMs: ACK_WAIT_MS,
    // What the single consumer had before the lanes, split among them.
    maxAckPending: 10_000,
    maxDeliver: p.config.WF_EXEC_MAX_DELIVER,
    redeliverOnce: p.config.WF_REDELIVER_ONCE,
  });
  for (const { durable } of queues) platformHealth(p).watchConsumer(streams.cmd, durable);

  const ends = startChainEnds({
    log,
    exist: async () => {
      const found = await Promise.all(endTypes.map((type) => consumerExists(p, streams.evt, names.chainEnds(type))));
      return found.some(Boolean);
    },
    chainedSince: () => p.store.workflows.chainedSince(),
    consume: async (startAt) => {
      // All made before any is consumed: a failed attempt leaves nothing running to make again.
      for (const type of endTypes)
        await ensureConsumer(p.jsm, streams.evt, {
          durable: names.chainEnds(type),
          filter: subjects(ns).eventFilter({ type }),
          ackWaitMs: ACK_WAIT_MS,
          maxDeliver: -1,
          maxAckPending: 10_000,
          // One missing beside others that exist: from now on, as end consumers always started.
          ...(startAt === undefined ? { fromNew: true } : { startAt }),
        });
      const started = await Promise.allSettled(
        endTypes.map((type) =>
          consume(streams.evt, names.chainEnds(type), () => "end", {
            end: command(ExecutionEvent, (e) => chains.seen(e)),
          }),
        ),
      );
      const running = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      const failed = started.find((r) => r.status === "rejected");
      if (!failed) return running;
      // Stopped again, so that the next attempt does not run two of one.
      await Promise.all(running.map((c) => c.stop()));
      throw failed.reason;
    },
  });

  const scan = startScan(schedules, p.config.WF_SCHEDULE_SCAN_MS, log);
  await scan.first;
  return {
    async stop() {
      await scan.stop();
      await Promise.all([commands.stop(), ends.stop()]);
      await budget.close();
    },
  };
}

async function consumerExists(p: Platform, stream: string, durable: string): Promise<boolean> {
  try {
    await p.jsm.consumers.info(stream, durable);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
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
