import type { KV } from "@nats-io/kv";
import { openKvBucket, type StreamPlacement } from "@wf/shared/nats";
import type { NatsConnection } from "@nats-io/nats-core";
import { z } from "zod";
import type { WebhookStatsView } from "@wf/shared/api";
import type { Logger } from "@wf/shared/log";
import { Lru } from "@wf/shared/pools";
import { isWrongLastSequence, type JetStreamPublisher } from "@wf/shared/store";

const MAX_ATTEMPTS = 50;
/**
 * How long a webhook's first uncounted outcome waits for others to share its write: a busy
 * webhook costs a write a second, and a stopping edge writes what waits at once.
 */
const LINGER_MS = 1_000;
const REMEMBERED = 10_000;
/** A reason is an answer's `error`; one quoting a sender's bad JSON is cut here, not kept whole. */
const MAX_REASON_CHARS = 500;

const Refusal = z.object({ message: z.string(), at: z.number() });

const Stored = z.object({
  total: z.number().int(),
  accepted: z.number().int(),
  rejected: z.record(z.string(), z.number().int()),
  // Counts written before reasons were kept read without them.
  lastRefusals: z.record(z.string(), Refusal).default({}),
  lastTriggeredAt: z.number().nullable(),
});
type Stored = z.infer<typeof Stored>;

const empty = (): Stored => ({ total: 0, accepted: 0, rejected: {}, lastRefusals: {}, lastTriggeredAt: null });

/**
 * Trigger counts per webhook in the KV bucket `<ns>_webhookstats`, one value per webhook. Counting
 * never delays an answer: outcomes are queued in memory, each webhook's queue waits LINGER_MS for
 * company and is then written by compare-and-set at the revision this process last wrote (a lost
 * race re-reads and retries); close() writes what is queued. A process that dies loses its unwritten
 * counts: statistics, not billing (docs/webhooks.md#managing-webhooks).
 */
export class WebhookStats {
  readonly #pending = new Map<string, Stored>();
  /** Webhooks whose queue waits out its linger, and those being written. */
  readonly #lingering = new Map<string, NodeJS.Timeout>();
  readonly #writing = new Map<string, Promise<void>>();
  #closing = false;
  /** The value and revision this process last wrote or read, per webhook. */
  readonly #known = new Lru<string, { value: Stored; revision: number }>(REMEMBERED);

  private constructor(
    private readonly kv: KV,
    private readonly bucket: string,
    private readonly publisher: JetStreamPublisher,
    private readonly log: Logger,
  ) {}

  static async open(
    nc: NatsConnection,
    ns: string,
    placement: StreamPlacement,
    publisher: JetStreamPublisher,
    log: Logger,
  ): Promise<WebhookStats> {
    const bucket = `${ns}_webhookstats`;
    return new WebhookStats(await openKvBucket(nc, bucket, { history: 1 }, placement), bucket, publisher, log);
  }

  /**
   * Counts one answer to a trigger of `webhookId`; 202 is accepted, anything else rejected, and
   * `reason` (the answer's `error`) is kept as the latest refusal of its status.
   */
  record(webhookId: string, status: number, at: number, reason: string | null): void {
    const pending = this.#pending.get(webhookId) ?? empty();
    this.#pending.set(webhookId, merge(pending, outcome(status, at, reason)));
    if (!this.#lingering.has(webhookId) && !this.#writing.has(webhookId) && !this.#closing) this.#linger(webhookId);
  }

  /** Writes every queued count now (an edge stopping). */
  async close(): Promise<void> {
    this.#closing = true;
    for (const [webhookId, linger] of this.#lingering) {
      clearTimeout(linger);
      this.#write(webhookId);
    }
    await Promise.all(this.#writing.values());
    // Counted while those writes were in flight.
    for (const webhookId of this.#pending.keys()) this.#write(webhookId);
    await Promise.all(this.#writing.values());
  }

  #linger(webhookId: string): void {
    this.#lingering.set(webhookId, setTimeout(() => this.#write(webhookId), LINGER_MS).unref());
  }

  /** Writes what is queued now; what comes meanwhile waits LINGER_MS again for its own write. */
  #write(webhookId: string): void {
    this.#lingering.delete(webhookId);
    const batch = this.#pending.get(webhookId);
    this.#pending.delete(webhookId);
    if (!batch) return;
    const written = this.#add(webhookId, batch)
      .catch((err: unknown) => this.log.warn("webhook stats not written", { webhookId, err }))
      .finally(() => {
        this.#writing.delete(webhookId);
        if (this.#pending.has(webhookId) && !this.#closing) this.#linger(webhookId);
      });
    this.#writing.set(webhookId, written);
  }

  async get(webhookId: string): Promise<WebhookStatsView> {
    const entry = await this.kv.get(webhookId);
    const stored = entry?.operation === "PUT" ? Stored.parse(entry.json()) : empty();
    return { webhookId, ...stored };
  }

  async forget(webhookId: string): Promise<void> {
    // Counts still queued here would bring the stats of a deleted webhook back.
    clearTimeout(this.#lingering.get(webhookId));
    this.#lingering.delete(webhookId);
    this.#pending.delete(webhookId);
    this.#known.delete(webhookId);
    await this.kv.purge(webhookId);
  }

  async #add(webhookId: string, batch: Stored): Promise<void> {
    let known = this.#known.get(webhookId) ?? (await this.#read(webhookId));
    for (let attempt = 1; ; attempt++) {
      const next = merge(known ? known.value : empty(), batch);
      const data = JSON.stringify(next);
      try {
        // Updates go straight to the key's subject ($KV.<bucket>.<key>); a create stays with nats.js,
        // which also creates over the purge marker a forgotten webhook's stats leave.
        const revision = known
          ? (
              await this.publisher.publish(`$KV.${this.bucket}.${webhookId}`, data, {
                expect: { lastSubjectSequence: known.revision },
              })
            ).seq
          : await this.kv.create(webhookId, data);
        this.#remember(webhookId, { value: next, revision });
        return;
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
        known = await this.#read(webhookId);
      }
    }
  }

  async #read(webhookId: string): Promise<{ value: Stored; revision: number } | undefined> {
    const entry = await this.kv.get(webhookId);
    if (entry?.operation !== "PUT") {
      this.#known.delete(webhookId);
      return undefined;
    }
    const known = { value: Stored.parse(entry.json()), revision: entry.revision };
    this.#remember(webhookId, known);
    return known;
  }

  #remember(webhookId: string, known: { value: Stored; revision: number }): void {
    this.#known.set(webhookId, known);
  }
}

function outcome(status: number, at: number, reason: string | null): Stored {
  const accepted = status === 202;
  const refusal =
    accepted || reason === null ? {} : { [String(status)]: { message: reason.slice(0, MAX_REASON_CHARS), at } };
  return {
    total: 1,
    accepted: accepted ? 1 : 0,
    rejected: accepted ? {} : { [String(status)]: 1 },
    lastRefusals: refusal,
    lastTriggeredAt: at,
  };
}

function merge(into: Stored, add: Stored): Stored {
  const rejected = { ...into.rejected };
  for (const [status, n] of Object.entries(add.rejected)) rejected[status] = (rejected[status] ?? 0) + n;
  const lastRefusals = { ...into.lastRefusals };
  for (const [status, refusal] of Object.entries(add.lastRefusals)) {
    if (refusal.at >= (lastRefusals[status]?.at ?? 0)) lastRefusals[status] = refusal;
  }
  const last = Math.max(into.lastTriggeredAt ?? 0, add.lastTriggeredAt ?? 0);
  return {
    total: into.total + add.total,
    accepted: into.accepted + add.accepted,
    rejected,
    lastRefusals,
    lastTriggeredAt: last === 0 ? null : last,
  };
}
