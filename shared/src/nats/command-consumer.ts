import type { ConsumerMessages, JetStreamClient, JsMsg } from "@nats-io/jetstream";
import type { z } from "zod";
import { TerminalError } from "../errors";
import type { Logger } from "../log";
import { subjects } from "./subjects";

/**
 * What a handler made of its message. Nothing (undefined): done, acknowledged. `retryInMs`: not
 * yet (the execution is busy elsewhere, a timer is not due): delivered again after the delay,
 * which is no failure. `unacked`: another delivery holds the work now; this one is left to lapse.
 */
export type Handled = void | { retryInMs: number } | "unacked";

export interface Command<T> {
  schema: z.ZodType<T>;
  handle(body: T, m: JsMsg): Promise<Handled>;
}

/** A command: its body's schema and its handler, typed together. */
export function command<T>(schema: z.ZodType<T>, handle: (body: T, m: JsMsg) => Promise<Handled>): Command<T> {
  return { schema, handle };
}

export interface CommandConsumerOptions {
  js: JetStreamClient;
  ns: string;
  stream: string;
  durable: string;
  log: Logger;
  /** The name of a message's command, from its subject (for most, one of its tokens). */
  commandOf(subject: string): string | undefined;
  // Commands differ in body type; each pairs its schema with its handler (see `command`).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  commands: Readonly<Record<string, Command<any>>>;
  /** The execution a message is about, if any (also of a body that did not validate). */
  executionOf?(subject: string, body: unknown): string | undefined;
  /**
   * The one give-up hook: a message about an execution was dropped (its body did not validate)
   * or given up (a terminal error, or the delivery limit reached): the execution must end
   * FAILED, saying why. An error here is logged; the message is dropped all the same.
   */
  giveUp?(executionId: string, reason: string): Promise<void>;
  /** Messages handled at once; no more are fetched, so none waits in a buffer while its lease runs. */
  concurrency: number;
  /** The consumer's AckWait: a message being handled has its lease renewed well within it. */
  ackWaitMs: number;
  /** Deliveries of a message whose handler keeps failing before it is given up. */
  maxDeliver: number;
  /** Every message handled twice, acknowledged on its second delivery (tests: handlers are idempotent). */
  redeliverOnce: boolean;
}

export interface CommandConsumer {
  /** Stops fetching; messages in hand are finished, or left to their lease after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** How long a failed message waits before its next delivery: 1 s, doubling to 30 s. */
export function retryDelayMs(deliveries: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.min(Math.max(deliveries, 1) - 1, 5));
}

/** What an operator's tools see on `<ns>.audit.command_dropped` when a message is dropped. */
export interface CommandDropped {
  at: number;
  reason: "command_dropped";
  consumer: string;
  subject: string;
  problem: string;
  executionId: string | null;
}

/**
 * Consumes a durable JetStream consumer's commands, the same way for every service: the body is
 * validated up front (only a body that fails validation, or names no known command, is dropped,
 * with an audit event and its execution failed); a handler's error is retried with one backoff
 * up to one delivery limit, unless it is a TerminalError; the lease of a message in hand is kept
 * alive; at most `concurrency` messages are held at once.
 */
export async function consumeCommands(opts: CommandConsumerOptions): Promise<CommandConsumer> {
  const consumer = await opts.js.consumers.get(opts.stream, opts.durable);
  const heartbeatMs = Math.max(250, Math.floor(opts.ackWaitMs / 3));
  let stopped = false;
  let free = opts.concurrency;
  let wake: (() => void) | null = null;
  let batch: ConsumerMessages | null = null;
  const inflight = new Set<Promise<void>>();

  const loop = (async () => {
    while (!stopped) {
      if (free === 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      try {
        batch = await consumer.fetch({ max_messages: free, expires: 5_000 });
        for await (const m of batch) {
          free--;
          const job = handleOne(opts, m, heartbeatMs).finally(() => {
            free++;
            inflight.delete(job);
            wake?.();
            wake = null;
          });
          inflight.add(job);
        }
      } catch (err) {
        if (stopped) break;
        opts.log.warn("fetch failed; retrying", { err, consumer: opts.durable });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  })();

  return {
    async stop(graceMs = 10_000): Promise<void> {
      stopped = true;
      batch?.stop();
      wake?.();
      await loop;
      await Promise.race([Promise.allSettled(inflight), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    },
  };
}

async function handleOne(opts: CommandConsumerOptions, m: JsMsg, heartbeatMs: number): Promise<void> {
  const name = opts.commandOf(m.subject);
  const cmd = name === undefined ? undefined : opts.commands[name];
  const raw = parseJson(m.string());
  const executionId = opts.executionOf?.(m.subject, raw);
  if (!cmd) return drop(opts, m, `no such command: ${name ?? m.subject}`, executionId);
  const parsed = cmd.schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
    return drop(opts, m, `malformed ${name} command (${raw === undefined ? "not JSON" : problems.join("; ")})`, executionId);
  }
  const heartbeat = setInterval(() => m.working(), heartbeatMs);
  try {
    const handled = await cmd.handle(parsed.data, m);
    if (handled === "unacked") return;
    if (handled) m.nak(handled.retryInMs);
    else if (opts.redeliverOnce && m.info.deliveryCount === 1) m.nak();
    else m.ack();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!(err instanceof TerminalError) && m.info.deliveryCount < opts.maxDeliver) {
      opts.log.warn("command failed; will be redelivered", { subject: m.subject, deliveries: m.info.deliveryCount, err });
      m.nak(retryDelayMs(m.info.deliveryCount));
      return;
    }
    const why = err instanceof TerminalError ? message : `gave up after ${m.info.deliveryCount} failed deliveries: ${message}`;
    opts.log.error("command given up", { subject: m.subject, err });
    await failExecution(opts, executionId, why);
    m.term(why.slice(0, 200));
  } finally {
    clearInterval(heartbeat);
  }
}

/** A message no handler can take: dropped, told to the audit stream, its execution failed. */
async function drop(opts: CommandConsumerOptions, m: JsMsg, problem: string, executionId: string | undefined): Promise<void> {
  opts.log.error("command dropped", { subject: m.subject, problem });
  const event: CommandDropped = {
    at: Date.now(),
    reason: "command_dropped",
    consumer: opts.durable,
    subject: m.subject,
    problem,
    executionId: executionId ?? null,
  };
  await opts.js.publish(subjects(opts.ns).audit("command_dropped"), JSON.stringify(event)).catch((err: unknown) => {
    opts.log.error("audit event not published", { err, subject: m.subject });
  });
  await failExecution(opts, executionId, `a command for it was dropped: ${problem}`);
  m.term(problem.slice(0, 200));
}

async function failExecution(opts: CommandConsumerOptions, executionId: string | undefined, reason: string): Promise<void> {
  if (executionId === undefined || !opts.giveUp) return;
  await opts.giveUp(executionId, reason).catch((err: unknown) => {
    opts.log.error("could not fail the execution of a command given up", { err, executionId });
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
