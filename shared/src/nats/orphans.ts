import { headers, type MsgHdrs } from "@nats-io/nats-core";
import type { JetStreamClient, JetStreamManager, JsMsg, StoredMsg } from "@nats-io/jetstream";
import type { Logger } from "../log";

/** On a message published again by the rescue: the stream sequence of the one it stands for. */
export const ORPHAN_OF_HEADER = "Wf-Orphan-Of";

/**
 * The stream sequence a command was first stored at. A rescued orphan keeps its original's, so
 * that a holder recorded under the original recognises it as the same command delivered again.
 */
export function commandSeq(m: Pick<JsMsg, "seq" | "headers">): number {
  const original = Number(m.headers?.get(ORPHAN_OF_HEADER));
  return Number.isInteger(original) && original > 0 ? original : m.seq;
}

/** A message must look orphaned this long before it is rescued: an acknowledged one leaves within milliseconds. */
export const ORPHAN_GRACE_MS = 5_000;
/** Messages looked at per check: a backlog of orphans is worked off over several checks. */
const CHECK_LIMIT = 200;

/**
 * Finds and rescues a work-queue consumer's orphans: messages of its filter still stored at or below
 * its ack floor, which nats-server 2.9 leaves when a clustered consumer's leader changes and never
 * delivers again. One seen so for ORPHAN_GRACE_MS is published again with its original sequence
 * (commandSeq) and the original removed; the publish's message id keeps one copy when replicas rescue
 * the same one (docs/architecture.md#subjects-and-streams).
 */
export class OrphanRescue {
  /** Suspects by stream sequence: when each was first seen at or below the floor. */
  private readonly suspects = new Map<number, number>();

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly stream: string,
    private readonly durable: string,
    private readonly log: Logger,
  ) {}

  /** One look: returns how many orphans it published again. */
  async check(now = Date.now()): Promise<number> {
    const info = await this.jsm.consumers.info(this.stream, this.durable);
    const floor = info.ack_floor.stream_seq;
    const filter = info.config.filter_subject ?? ">";
    const seen = new Set<number>();
    let rescued = 0;
    let from = 0;
    for (let looked = 0; looked < CHECK_LIMIT; looked++) {
      // The server's message get takes the filter since 2.9: the next message of it at or after `seq`.
      const next = await this.jsm.streams.getMessage(this.stream, { seq: from, next_by_subj: filter } as never);
      if (!next || next.seq > floor) break;
      seen.add(next.seq);
      const since = this.suspects.get(next.seq) ?? now;
      this.suspects.set(next.seq, since);
      if (now - since >= ORPHAN_GRACE_MS) {
        await this.rescue(next);
        rescued++;
      }
      from = next.seq + 1;
    }
    for (const seq of this.suspects.keys()) if (!seen.has(seq)) this.suspects.delete(seq);
    return rescued;
  }

  private async rescue(orphan: StoredMsg): Promise<void> {
    const h = copyHeaders(orphan.header);
    h.set(ORPHAN_OF_HEADER, String(commandSeq({ seq: orphan.seq, headers: orphan.header })));
    await this.js.publish(orphan.subject, orphan.data, { msgID: `orphan:${this.stream}:${orphan.seq}`, headers: h });
    await this.jsm.streams.deleteMessage(this.stream, orphan.seq, false).catch((err: unknown) => {
      // Another replica removed it first.
      if (!/no message found|not found/i.test(String(err))) throw err;
    });
    this.suspects.delete(orphan.seq);
    this.log.warn("a message the consumer had lost track of was published again", {
      stream: this.stream,
      consumer: this.durable,
      seq: orphan.seq,
      subject: orphan.subject,
    });
  }
}

/** The message's own headers, without the server's (`Nats-*`: its message id would deduplicate the copy away). */
function copyHeaders(from: MsgHdrs | undefined): MsgHdrs {
  const h = headers();
  for (const key of from?.keys() ?? []) {
    if (key.toLowerCase().startsWith("nats-")) continue;
    for (const v of from!.values(key)) h.append(key, v);
  }
  return h;
}
