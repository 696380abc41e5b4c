import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { z } from "zod";
import type { WebhookStatsView } from "@wf/shared/api";
import type { Logger } from "@wf/shared/log";
import { isWrongLastSequence } from "@wf/shared/store";

const MAX_ATTEMPTS = 50;

const Stored = z.object({
  total: z.number().int(),
  accepted: z.number().int(),
  rejected: z.record(z.string(), z.number().int()),
  lastTriggeredAt: z.number().nullable(),
});
type Stored = z.infer<typeof Stored>;

const EMPTY: Stored = { total: 0, accepted: 0, rejected: {}, lastTriggeredAt: null };

/**
 * Trigger counts per webhook in the KV bucket `<ns>_webhookstats` (one value per webhook,
 * updated by compare-and-set so replicas add up). Counting never delays an answer: outcomes
 * are queued in memory and each webhook's queue is written by one write at a time, so a busy
 * webhook costs about one write per round trip. A process that dies loses its unwritten counts:
 * these are statistics, not billing.
 */
export class WebhookStats {
  readonly #pending = new Map<string, Stored>();
  readonly #writing = new Set<string>();

  private constructor(
    private readonly kv: KV,
    private readonly log: Logger,
  ) {}

  static async open(nc: NatsConnection, ns: string, log: Logger): Promise<WebhookStats> {
    return new WebhookStats(await new Kvm(nc).create(`${ns}_webhookstats`, { history: 1 }), log);
  }

  /** Counts one answer to a trigger of `webhookId`; 202 is accepted, anything else rejected. */
  record(webhookId: string, status: number, at: number): void {
    const pending = this.#pending.get(webhookId) ?? structuredClone(EMPTY);
    this.#pending.set(webhookId, merge(pending, outcome(status, at)));
    if (!this.#writing.has(webhookId)) void this.#drain(webhookId);
  }

  async get(webhookId: string): Promise<WebhookStatsView> {
    const entry = await this.kv.get(webhookId);
    const stored = entry?.operation === "PUT" ? Stored.parse(entry.json()) : EMPTY;
    return { webhookId, ...stored };
  }

  async forget(webhookId: string): Promise<void> {
    await this.kv.purge(webhookId);
  }

  async #drain(webhookId: string): Promise<void> {
    this.#writing.add(webhookId);
    try {
      for (let batch = this.#pending.get(webhookId); batch; batch = this.#pending.get(webhookId)) {
        this.#pending.delete(webhookId);
        await this.#add(webhookId, batch).catch((err: unknown) => this.log.warn("webhook stats not written", { webhookId, err }));
      }
    } finally {
      this.#writing.delete(webhookId);
    }
  }

  async #add(webhookId: string, batch: Stored): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const entry = await this.kv.get(webhookId);
      const current = entry?.operation === "PUT" ? Stored.parse(entry.json()) : null;
      const next = JSON.stringify(merge(current ?? structuredClone(EMPTY), batch));
      try {
        if (current && entry) await this.kv.update(webhookId, next, entry.revision);
        else await this.kv.create(webhookId, next);
        return;
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }
}

function outcome(status: number, at: number): Stored {
  const accepted = status === 202;
  return { total: 1, accepted: accepted ? 1 : 0, rejected: accepted ? {} : { [String(status)]: 1 }, lastTriggeredAt: at };
}

function merge(into: Stored, add: Stored): Stored {
  const rejected = { ...into.rejected };
  for (const [status, n] of Object.entries(add.rejected)) rejected[status] = (rejected[status] ?? 0) + n;
  const last = Math.max(into.lastTriggeredAt ?? 0, add.lastTriggeredAt ?? 0);
  return { total: into.total + add.total, accepted: into.accepted + add.accepted, rejected, lastTriggeredAt: last === 0 ? null : last };
}
