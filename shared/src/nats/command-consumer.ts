import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import type { z } from "zod";
import { TerminalError } from "../errors";
import type { Logger } from "../log";
import { Lru } from "../pools/lru";
import { ORPHAN_GRACE_MS, OrphanRescue } from "./orphans";
import { subjects } from "./subjects";
import { isTransient } from "./transient";
import { whileStarting } from "./while-starting";

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
  /** For the rescue of a work queue's orphans (./orphans.ts); without it, none is looked for. */
  jsm?: JetStreamManager;
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
   * or given up (a terminal error, or the failure limit reached): the execution must end
   * FAILED, saying why. While the hook fails transiently the message is kept and tried again;
   * another error is logged and the message dropped all the same.
   */
  giveUp?(executionId: string, reason: string): Promise<void>;
  /**
   * Messages handled at once; no more are fetched, so none waits in a buffer while its lease runs.
   * A bound that changes is read before each fetch.
   */
  concurrency: number | ConcurrencyBound;
  /** The consumer's AckWait: a message being handled has its lease renewed well within it. */
  ackWaitMs: number;
  /**
   * Failed attempts at a message, in this process, before it is given up. Deliveries that only
   * found the work busy (`retryInMs`) and transient failures (a cluster electing a leader) do not
   * count: a long execution must not use up its command while other commands wait on it.
   */
  maxDeliver: number;
  /** The wait before a failed message's next delivery, by its failures so far (`retryDelayMs`). */
  retryDelay?: (failures: number) => number;
  /** Every message handled twice, acknowledged on its second delivery (tests: handlers are idempotent). */
  redeliverOnce: boolean;
}

/**
 * A limit on the messages in hand that may change while consuming (the executor's backlog yield, its start lanes'
 * shares).
 */
export interface ConcurrencyBound {
  current(): number;
  /** Calls `listener` after each change of the limit; returns what stops it. */
  onChange(listener: () => void): () => void;
  /**
   * Told the messages in hand after each one taken or settled, with, for one taken, how many the
   * consumer holds beyond it (0 after a fetch that brought none).
   */
  observe?(inHand: number, pending: number | undefined): void;
}

export interface CommandConsumer {
  /** Stops fetching; messages in hand are finished, or left to their lease after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** How long a failed message waits before its next delivery: 1 s, doubling to 30 s. */
export function retryDelayMs(failures: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.min(Math.max(failures, 1) - 1, 5));
}

/** Messages whose handler failed here, by stream sequence, until they are settled. */
class FailureCounts {
  private static readonly KEPT = 10_000;
  // Taken by another process and settled there: the oldest are forgotten.
  private readonly counts = new Lru<number, number>(FailureCounts.KEPT);

  add(seq: number): number {
    const n = (this.counts.get(seq) ?? 0) + 1;
    this.counts.set(seq, n);
    return n;
  }

  clear(seq: number): void {
    this.counts.delete(seq);
  }
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
  const consumer = await whileStarting(() => opts.js.consumers.get(opts.stream, opts.durable));
  const heartbeatMs = Math.max(250, Math.floor(opts.ackWaitMs / 3));
  let stopped = false;
  const bound = typeof opts.concurrency === "number" ? fixedBound(opts.concurrency) : opts.concurrency;
  let wake: (() => void) | null = null;
  const wakeLoop = (): void => {
    wake?.();
    wake = null;
  };
  let batch: ConsumerMessages | null = null;
  const inflight = new Set<Promise<void>>();
  const failures = new FailureCounts();

  const rescue =
    opts.jsm && (await isWorkQueue(opts.jsm, opts.stream))
      ? watchOrphans(new OrphanRescue(opts.jsm, opts.js, opts.stream, opts.durable, opts.log), opts)
      : null;

  // A limit lowered while a fetch waits takes effect at the next fetch: the one waiting may still bring what the old
  // limit left room for.
  const unbound = bound.onChange(wakeLoop);
  const loop = (async () => {
    while (!stopped) {
      const free = bound.current() - inflight.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      try {
        batch = await consumer.fetch({ max_messages: free, expires: 5_000 });
        let taken = 0;
        for await (const m of batch) {
          const job = handleOne(opts, m, heartbeatMs, failures).finally(() => {
            inflight.delete(job);
            bound.observe?.(inflight.size, undefined);
            wakeLoop();
          });
          inflight.add(job);
          taken++;
          bound.observe?.(inflight.size, m.info.pending);
        }
        if (taken === 0) bound.observe?.(inflight.size, 0);
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
      unbound();
      rescue?.stop();
      batch?.stop();
      wakeLoop();
      await loop;
      await Promise.race([
        Promise.allSettled(inflight),
        new Promise((resolve) => setTimeout(resolve, graceMs).unref()),
      ]);
    },
  };
}

function fixedBound(limit: number): ConcurrencyBound {
  return { current: () => limit, onChange: () => () => undefined };
}

async function isWorkQueue(jsm: JetStreamManager, stream: string): Promise<boolean> {
  return (await whileStarting(() => jsm.streams.info(stream))).config.retention === "workqueue";
}

/** Looks for orphans every ORPHAN_GRACE_MS (jittered: replicas look at different moments). */
function watchOrphans(rescue: OrphanRescue, opts: CommandConsumerOptions): { stop(): void } {
  let timer: NodeJS.Timeout;
  const next = (): void => {
    timer = setTimeout(
      () => {
        rescue
          .check()
          .catch((err: unknown) =>
            opts.log.warn("could not look for orphaned messages; looking again later", { err, consumer: opts.durable }),
          )
          .finally(next);
      },
      ORPHAN_GRACE_MS * (0.5 + Math.random()),
    );
    timer.unref();
  };
  next();
  return { stop: () => clearTimeout(timer) };
}

async function handleOne(
  opts: CommandConsumerOptions,
  m: JsMsg,
  heartbeatMs: number,
  failures: FailureCounts,
): Promise<void> {
  const name = opts.commandOf(m.subject);
  const cmd = name === undefined ? undefined : opts.commands[name];
  const raw = parseJson(m.string());
  const executionId = opts.executionOf?.(m.subject, raw);
  const delay = opts.retryDelay ?? retryDelayMs;
  if (!cmd) return drop(opts, m, `no such command: ${name ?? m.subject}`, executionId, delay);
  const parsed = cmd.schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
    return drop(
      opts,
      m,
      `malformed ${name} command (${raw === undefined ? "not JSON" : problems.join("; ")})`,
      executionId,
      delay,
    );
  }
  const heartbeat = setInterval(() => m.working(), heartbeatMs);
  try {
    const handled = await cmd.handle(parsed.data, m);
    if (handled === "unacked") return;
    if (handled) {
      m.nak(handled.retryInMs);
      return;
    }
    failures.clear(m.seq);
    if (opts.redeliverOnce && m.info.deliveryCount === 1) m.nak();
    else m.ack();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const terminal = err instanceof TerminalError;
    const failed = terminal ? 0 : failures.add(m.seq);
    const transient = !terminal && isTransient(err);
    if (!terminal && (transient || failed < opts.maxDeliver)) {
      opts.log.warn("command failed; will be redelivered", { subject: m.subject, failures: failed, transient, err });
      m.nak(delay(failed));
      return;
    }
    const why = terminal ? message : `gave up after ${failed} failed attempts: ${message}`;
    opts.log.error("command given up", { subject: m.subject, err });
    if (!(await failExecution(opts, executionId, why))) {
      m.nak(delay(failed));
      return;
    }
    failures.clear(m.seq);
    // No reason with it: servers before 2.10 do not parse `+TERM <reason>`, and would deliver the message again.
    m.term();
  } finally {
    clearInterval(heartbeat);
  }
}

/** A message no handler can take: its execution failed, told to the audit stream, dropped. */
async function drop(
  opts: CommandConsumerOptions,
  m: JsMsg,
  problem: string,
  executionId: string | undefined,
  delay: (failures: number) => number,
): Promise<void> {
  opts.log.error("command dropped", { subject: m.subject, problem });
  if (!(await failExecution(opts, executionId, `a command for it was dropped: ${problem}`))) {
    m.nak(delay(m.info.deliveryCount));
    return;
  }
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
  m.term();
}

/**
 * Ends the execution a given-up message names. False when that failed only for now: the message
 * is kept, so that the execution is not left unfinished with nothing to finish it.
 */
async function failExecution(
  opts: CommandConsumerOptions,
  executionId: string | undefined,
  reason: string,
): Promise<boolean> {
  if (executionId === undefined || !opts.giveUp) return true;
  try {
    await opts.giveUp(executionId, reason);
    return true;
  } catch (err) {
    const transient = isTransient(err);
    opts.log.error(
      transient
        ? "the execution of a command given up could not be failed yet; kept to try again"
        : "could not fail the execution of a command given up",
      {
        err,
        executionId,
      },
    );
    return !transient;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
