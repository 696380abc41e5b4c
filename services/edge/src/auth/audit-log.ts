import type { JetStreamClient } from "@nats-io/jetstream";
import type { AuditReason } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { subjects } from "@wf/shared/nats";
import type { AuditRecord, Store } from "@wf/shared/store";
import { AuditBudget } from "./audit-budget";

export interface AuditEntry {
  at: number;
  reason: AuditReason;
  keyId: string | null;
  ip: string;
  method: string;
  /** Without the query string: it may carry a key. */
  path: string;
}

/** How often counted refusals of ended windows are written as summaries. */
const FLUSH_MS = 5_000;

/**
 * Where refused requests go: a record in the store (`wf admin audit`) and an event on
 * `<ns>.audit.<reason>` (stream `<ns>_AUDIT`). The answer waits for both, so a client that got its
 * 401 finds the record; a failure of either is logged and the answer is still the 401. Past the
 * budget (audit-budget.ts) a refusal is counted instead, each minute's counts written as summary
 * records (`repeats`) once it ended, and when the edge stops.
 */
export class AuditLog {
  readonly #budget: AuditBudget<AuditEntry>;
  readonly #flusher: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly js: JetStreamClient,
    private readonly ns: string,
    private readonly log: Logger,
    budget: { perSourcePerMinute: number; perMinute: number },
    private readonly clock: () => number,
  ) {
    this.#budget = new AuditBudget(budget.perSourcePerMinute, budget.perMinute, clock);
    this.#flusher = setInterval(() => void this.#flush(false), FLUSH_MS).unref();
  }

  async record(entry: AuditEntry): Promise<void> {
    if (!this.#budget.admit(entry.ip, entry.reason, entry)) return;
    await this.#write({ id: newId(entry.at), ...entry, repeats: 0 });
  }

  /** Writes the counts not written yet, the current minute's included. */
  close(): Promise<void> {
    clearInterval(this.#flusher);
    return this.#flush(true);
  }

  async #flush(all: boolean): Promise<void> {
    for (const c of this.#budget.drain(all)) {
      const at = Math.min(c.windowEnd, this.clock());
      await this.#write({
        id: newId(at),
        at,
        reason: c.last.reason,
        keyId: null,
        ip: c.ip,
        method: c.last.method,
        path: c.last.path,
        repeats: c.count,
      });
    }
  }

  async #write(record: AuditRecord): Promise<void> {
    const [stored, published] = await Promise.allSettled([
      this.store.audit.create(record),
      this.js.publish(subjects(this.ns).audit(record.reason), JSON.stringify(record), { msgID: record.id }),
    ]);
    if (stored.status === "rejected")
      this.log.error("audit record not stored", { err: stored.reason, reason: record.reason });
    if (published.status === "rejected")
      this.log.error("audit event not published", { err: published.reason, reason: record.reason });
  }
}
