import type { z } from "zod";
import { AlreadyExistsError, CasConflictError, RecordTooLargeError, WfError } from "../../errors";
import { parseRecord } from "../parse-record";
import { storedForm, type RecordForm, type StoredForm } from "../stored-form";
import type { StoredEntry } from "./direct-reads";
import { fromKeyToken, keyToken } from "./key-codec";
import type { KvBuckets } from "./kv-buckets";
import { leaderLast } from "./leader-reads";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";
import { utf8BytesOver } from "../../text/utf8-bytes";

/**
 * What a write's headers take of a message at most: `Nats-Expected-Last-Subject-Sequence` with a 20-digit value, 71
 * bytes.
 */
const HEADERS_ROOM = 128;

/** Where a read is answered: any replica, or the stream's leader for a read that bounds a write (leader-reads.ts). */
export type ReadFrom = "any" | "leader";

/**
 * The records of one type in their bucket, by key token, written in their stored form (stored-form.ts), less what
 * their `form` leaves out.
 */
export class RecordBucket<T extends { id: string }> {
  readonly #stored: StoredForm<T>;

  constructor(
    private readonly buckets: KvBuckets,
    /** The record type's name, in errors: "executions". */
    readonly type: string,
    private readonly schema: z.ZodType<T>,
    private readonly form?: RecordForm,
  ) {
    this.#stored = storedForm(schema);
  }

  /** The record's last message. */
  read(token: string, from: ReadFrom = "any"): Promise<StoredEntry | null> {
    const { reads, records, recordsBucket, jsm } = this.buckets;
    if (from === "leader") return leaderLast(jsm, recordsBucket, token);
    return reads === null ? records.get(token) : reads.last(recordsBucket, token);
  }

  /** The record a stored entry holds: its form and parseRecord put back what its stored form leaves out. */
  async parse(token: string, entry: StoredEntry): Promise<T> {
    const stored = entry.json();
    const restored: unknown = this.form ? await this.form.restore(stored) : stored;
    return parseRecord(this.schema, restored, this.type, fromKeyToken(token));
  }

  /** Creates the record; like KV create, also over a deleted record's marker. */
  async create(value: T): Promise<number> {
    const token = keyToken(value.id);
    const data = this.#encode(value);
    this.#fits(value.id, data);
    try {
      return (await this.buckets.publisher.publish(this.#subject(token), data, { expect: { lastSubjectSequence: 0 } }))
        .seq;
    } catch (err) {
      // The id exists, or was deleted (its delete marker is the last message): nats.js tells which.
      if (isWrongLastSequence(err)) return this.buckets.records.create(token, data);
      throw err;
    }
  }

  async update(value: T, expectedVersion: number): Promise<number> {
    const subject = this.#subject(keyToken(value.id));
    const data = this.#encode(value);
    this.#fits(value.id, data);
    return (
      await this.buckets.publisher.publish(subject, data, {
        expect: { lastSubjectSequence: expectedVersion },
      })
    ).seq;
  }

  async delete(token: string): Promise<void> {
    await this.buckets.records.delete(token);
  }

  notFound(id: string): WfError {
    return new WfError("NOT_FOUND", `${this.type}/${id} does not exist`);
  }

  conflict(id: string): CasConflictError {
    return new CasConflictError(`${this.type}/${id}`);
  }

  exists(id: string): AlreadyExistsError {
    return new AlreadyExistsError(`${this.type}/${id}`);
  }

  /**
   * Refuses a record over the server's max_payload with a RecordTooLargeError, which says by how much, rather than
   * nats.js's bare refusal of the message.
   */
  #fits(id: string, data: string): void {
    const limit = this.buckets.publisher.maxPayload;
    if (limit === undefined) return;
    const bytes = utf8BytesOver(data, limit - HEADERS_ROOM);
    if (bytes !== undefined) throw new RecordTooLargeError(`${this.type}/${id}`, bytes, limit - HEADERS_ROOM);
  }

  #encode(value: T): string {
    const stored = this.#stored(value);
    if (!this.form) return JSON.stringify(stored);
    const compacted = this.form.compact(stored);
    return this.form.stringify ? this.form.stringify(compacted) : JSON.stringify(compacted);
  }

  #subject(token: string): string {
    return `$KV.${this.buckets.recordsBucket}.${token}`;
  }
}
