import type { Msg, NatsConnection, Subscription } from "@nats-io/nats-core";
import { subjects } from "@wf/shared/nats";

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
 * Observes terminal events as they are published, with a core subscription per terminal type, made before anything
 * the caller then starts: the server holds the interest once `open` resolves (a flush), so no execution started after
 * it can be missed on a single server. Not JetStream consumers, which the service needs none of: four (one per type,
 * as nats-server 2.9 takes one filter each) cost nats-server about 0.035 ms per 3-step workflow, an eighth of its part
 * (2-vCPU PVM guest, 2026-12-06, three interleaved pairs of 3,000 transform workflows), where 32 idle consumers
 * filtered on other subjects added 1–2 µs per event stored: the cost is in delivering through them. That every event
 * was stored is counted on the stream (throughput.ts). Only terminal events are delivered, so observing costs the
 * process under test one small message per execution, not one per step.
 */
export class CompletionWatcher {
  private readonly waiters = new Map<string, (c: Completion) => void>();
  private readonly done = new Map<string, Completion>();
  private readonly subs: Subscription[] = [];

  private constructor(private readonly ns: string) {}

  /** `ownerId`: only that owner's executions. */
  static async open(nc: NatsConnection, ns: string, opts: { ownerId?: string } = {}): Promise<CompletionWatcher> {
    const w = new CompletionWatcher(ns);
    for (const type of TERMINAL_TYPES) {
      const subject = subjects(ns).eventFilter({ type, ...opts });
      const callback = (err: Error | null, m: Msg): void => {
        if (err === null) w.record(m.subject, m.string());
      };
      w.subs.push(nc.subscribe(subject, { callback }));
    }
    await nc.flush();
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

  close(): void {
    for (const s of this.subs) s.unsubscribe();
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
