import { pageWindow } from "../paging";
import type { Page, PageQuery } from "../port";
import { recordTokenOf } from "./index-keys";
import { fromKeyToken } from "./key-codec";
import type { KnownRecords, Loaded } from "./known-records";
import type { KvBuckets } from "./kv-buckets";
import type { ReadFrom } from "./record-bucket";

/** Ascending or descending on the last two tokens of the index keys (sort field, then id). */
export type KeyOrder = "asc" | "desc";

/** A listed record, with its stored size for callers that keep it. */
export interface Resolved<T> {
  value: T;
  bytes: number;
}

/**
 * Lists of one record type by its index keys, each ending in a sort token and the id: one key scan
 * with a subject filter, a sort, and reads of one page of records. A listed key counts only if its
 * record still claims it (docs/architecture.md#index-consistency-on-kv). Executions and an owner's
 * approvals are listed from in-memory views of their index instead (execution-index.ts,
 * key-groups-view.ts), whose keys `resolve` reads.
 */
export class IndexLists<T extends { id: string }> {
  constructor(
    private readonly buckets: Pick<KvBuckets, "jsm" | "indexBucket">,
    private readonly known: KnownRecords<T>,
  ) {}

  /**
   * One page of the records listed under `filter`, with the number listed in all; with `from`,
   * only keys whose sort token is at least `from` count.
   */
  async page(filter: string, order: KeyOrder, query: PageQuery, opts: { from?: string } = {}): Promise<Page<T>> {
    const { skip, limit } = pageWindow(query);
    const rows = await this.#sortedRows(filter, order, opts.from);
    const window = rows.slice(skip, skip + limit);
    const items = (await this.resolve(window)).map((r) => r.value);
    return { items, total: rows.length - (window.length - items.length) };
  }

  /** Every record listed under `filter`. */
  async all(filter: string, order: KeyOrder): Promise<T[]> {
    return (await this.resolve(await this.#sortedRows(filter, order))).map((r) => r.value);
  }

  /**
   * The records of index `keys` that still claim their key (and, with `valueIs`, still carry that value); read `from`
   * the records' leaders for a count that every write returned must be in.
   */
  async resolve(keys: readonly string[], valueIs?: string, from: ReadFrom = "any"): Promise<Resolved<T>[]> {
    const loaded = await Promise.all(keys.map((key) => this.known.load(recordTokenOf(key), from)));
    return loaded.filter(
      (record, i): record is Loaded<T> =>
        !!record?.index.has(keys[i]!) && (valueIs === undefined || record.indexValue === valueIs),
    );
  }

  /**
   * When the oldest index key matching `filter` was written (the server's clock), or null when
   * none does: one direct read, where a key scan costs a consumer. Removed keys are purged, never
   * marked (but in a followed index, whose lists do not ask this), so a match is a key that
   * exists (its record may not).
   */
  async firstKeyStoredAt(filter: string): Promise<number | null> {
    const { jsm, indexBucket } = this.buckets;
    const first = await jsm.direct.getMessage(`KV_${indexBucket}`, { next_by_subj: `$KV.${indexBucket}.${filter}` });
    return first === null ? null : first.time.getTime();
  }

  async #sortedRows(filter: string, order: KeyOrder, from?: string): Promise<string[]> {
    const rows: { key: string; sort: string; id: string }[] = [];
    for (const key of await this.keys(filter)) {
      const tokens = key.split(".");
      const sort = fromKeyToken(tokens.at(-2)!);
      if (from === undefined || sort >= from) rows.push({ key, sort, id: fromKeyToken(tokens.at(-1)!) });
    }
    const sign = order === "asc" ? 1 : -1;
    rows.sort((a, b) => sign * (compare(a.sort, b.sort) || compare(a.id, b.id)));
    return rows.map(({ key }) => key);
  }

  /**
   * The index keys matching `filter`, from the index stream's own subject state (STREAM.INFO with a
   * subject filter, paged by nats.js past 100,000): one request to the stream's leader, no consumer
   * (docs/architecture.md#storage). Removed keys are purged, never marked, so every subject held is a
   * key that exists; in a followed index a key removed in the last minute may still be held as its
   * marker, which its record no longer claims, so reads drop it.
   */
  async keys(filter: string): Promise<string[]> {
    const { jsm, indexBucket } = this.buckets;
    const prefix = `$KV.${indexBucket}.`;
    const info = await jsm.streams.info(`KV_${indexBucket}`, { subjects_filter: prefix + filter });
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
