import type { JetStreamClient } from "@nats-io/jetstream";
import type { AuditReason } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { subjects } from "@wf/shared/nats";
import type { AuditRecord, Store } from "@wf/shared/store";

export interface AuditEntry {
  at: number;
  reason: AuditReason;
  keyId: string | null;
  ip: string;
  method: string;
  /** Without the query string: it may carry a key. */
  path: string;
}

/**
 * Where refused requests go: a record in the store (listed by `wf admin audit`) and an event on
 * `<ns>.audit.<reason>` (stream `<ns>_AUDIT`) for operators' own tools. The answer waits for
 * both, so that a client that got its 401 finds the record; a failure of either is logged, and
 * the answer is still the 401.
 */
export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly js: JetStreamClient,
    private readonly ns: string,
    private readonly log: Logger,
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    const record: AuditRecord = { id: newId(entry.at), ...entry };
    const [stored, published] = await Promise.allSettled([
      this.store.audit.create(record),
      this.js.publish(subjects(this.ns).audit(entry.reason), JSON.stringify(record), { msgID: record.id }),
    ]);
    if (stored.status === "rejected") this.log.error("audit record not stored", { err: stored.reason, reason: entry.reason });
    if (published.status === "rejected") this.log.error("audit event not published", { err: published.reason, reason: entry.reason });
  }
}
