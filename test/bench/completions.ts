import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { streamNames, subjects } from "@wf/shared/nats";

/** The terminal event of one execution, as seen by the benchmark client. */
export interface Completion {
  type: string;
  /** The execution's owner, from the event's subject. */
  ownerId: string;
  /** performance.now() when the event reached this client. */
  seenAt: number;
  output: unknown;
  /** The executor's own start-to-end time, from the event (ms). */
  duration: number | null;
  error: string | null;
}

const TERMINAL_TYPES = ["exec_completed", "exec_failed", "exec_cancelled", "exec_interrupted"] as const;

/**
 * Observes terminal events on the EVT stream with ordered consumers, one per terminal type
 * (a single filter each, which nats-server 2.9 supports), starting just past the stream's last
 * sequence at open time: an execution expected after `open` cannot be missed, however late
 * the server-side consumer is created. Only terminal events are delivered, so observing costs
 * the process under test one small message per execution, not one per step.
 */
export class CompletionWatcher {
  private readonly waiters = new Map<string, (c: Completion) => void>();
  private readonly done = new Map<string, Completion>();
  private readonly streams: ConsumerMessages[] = [];
  private loops: Promise<void>[] = [];

  private constructor(private readonly ns: string) {}

  /** `ownerId`: only that owner's executions. */
  static async open(
    js: JetStreamClient,
    jsm: JetStreamManager,
    ns: string,
    opts: { ownerId?: string } = {},
  ): Promise<CompletionWatcher> {
    const w = new CompletionWatcher(ns);
    const stream = streamNames(ns).evt;
    const info = await jsm.streams.info(stream);
    const from = info.state.last_seq + 1;
    for (const type of TERMINAL_TYPES) {
      const consumer = await js.consumers.get(stream, {
        filter_subjects: subjects(ns).eventFilter({ type, ...opts }),
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: from,
      });
      const messages = await consumer.consume();
      w.streams.push(messages);
      w.loops.push(
        (async () => {
          for await (const m of messages) w.record(m.subject, m.string());
        })(),
      );
    }
    return w;
  }

  /** Resolves at the execution's terminal event; call before publishing its start command. */
  expect(executionId: string): Promise<Completion> {
    const seen = this.done.get(executionId);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.set(executionId, resolve));
  }

  /** The terminal events no `expect` waited for, in the order they arrived. */
  unclaimed(): Completion[] {
    return [...this.done.values()];
  }

  /** Forgets an execution whose wait timed out, so a late event does not resolve a dead promise. */
  forget(executionId: string): void {
    this.waiters.delete(executionId);
    this.done.delete(executionId);
  }

  async close(): Promise<void> {
    for (const s of this.streams) await s.close();
    await Promise.allSettled(this.loops);
    this.loops = [];
  }

  private record(subject: string, body: string): void {
    const seenAt = performance.now();
    // <ns>.evt.<owner>.<workflow>.<exec>.<type>: the ids come from the subject, no lookup needed.
    const tokens = subject.slice(this.ns.length + 1).split(".");
    const [, ownerId, , executionId, type] = tokens;
    if (!ownerId || !executionId || !type) return;
    let data: { output?: unknown; duration?: unknown; error?: unknown } = {};
    try {
      data = (JSON.parse(body) as { data?: typeof data }).data ?? {};
    } catch {
      // A malformed event still ends the wait; its fields stay empty.
    }
    const c: Completion = {
      type,
      ownerId,
      seenAt,
      output: data.output ?? null,
      duration: typeof data.duration === "number" ? data.duration : null,
      error: typeof data.error === "string" ? data.error : null,
    };
    const waiter = this.waiters.get(executionId);
    if (waiter) {
      this.waiters.delete(executionId);
      waiter(c);
    } else {
      this.done.set(executionId, c);
    }
  }
}
