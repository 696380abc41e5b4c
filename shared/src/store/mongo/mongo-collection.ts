import type { Collection, CountDocumentsOptions, Filter, FindOptions, Sort } from "mongodb";
import type { z } from "zod";
import { AlreadyExistsError, CasConflictError, WfError } from "../../errors";
import { pageWindow } from "../paging";
import { parseRecord } from "../parse-record";
import type { Page, PageQuery, Versioned } from "../port";

/**
 * A stored document: `_id` the record's id, `version` its CAS counter, `record` the record as JSON,
 * and copies of the fields the list queries filter and sort on. The record is a JSON string, not a
 * BSON subdocument: its maps have keys MongoDB handles badly or not at all in updates (step paths with
 * dots such as `loop[2].name`, `$` prefixes), and its own `version` (a workflow's) stays apart.
 */
export interface StoredDoc {
  _id: string;
  version: number;
  record: string;
  [indexed: string]: unknown;
}

const DUPLICATE_KEY = 11000;

/**
 * The server's duplicate-key refusal, told by its code: the driver's error classes are not imported
 * here, so that loading the store does not load the driver (open-mongo-store.ts loads it on open).
 */
export function isDuplicateKey(err: unknown): boolean {
  return err instanceof Error && err.name.startsWith("Mongo") && (err as { code?: unknown }).code === DUPLICATE_KEY;
}

export class MongoCollection<T extends { id: string }> {
  constructor(
    private readonly docs: Collection<StoredDoc>,
    private readonly type: string,
    private readonly schema: z.ZodType<T>,
    /** The indexed fields stored beside the record. */
    private readonly fields: (value: T) => Record<string, unknown>,
  ) {}

  async create(value: T): Promise<number> {
    try {
      await this.docs.insertOne({ ...this.fields(value), _id: value.id, version: 1, record: JSON.stringify(value) });
      return 1;
    } catch (err) {
      if (isDuplicateKey(err)) {
        throw new AlreadyExistsError(`${this.type}/${value.id}`);
      }
      throw err;
    }
  }

  get(id: string): Promise<Versioned<T> | null> {
    return this.findOne({ _id: id });
  }

  /**
   * `get` where a miss costs this process what a find costs: `decoy`, a record of this type as
   * stored, is parsed as a found one is, then dropped (kv/known-records.ts has the why). The
   * database's part stays uneven: it answers for a missing id without a document.
   */
  protected async getEvenly(id: string, decoy: StoredDoc): Promise<Versioned<T> | null> {
    const found = await this.findOne({ _id: id });
    if (found === null) this.#parse(decoy);
    return found;
  }

  /** No change stream is kept: every read goes to the database. */
  getRecent(id: string): Promise<Versioned<T> | null> {
    return this.get(id);
  }

  protected async findOne(filter: Filter<StoredDoc>, options?: FindOptions): Promise<Versioned<T> | null> {
    const doc = await this.docs.findOne(filter, options);
    return doc && { value: this.#parse(doc), version: doc.version };
  }

  async update(value: T, expectedVersion: number): Promise<number> {
    const version = expectedVersion + 1;
    const { matchedCount } = await this.docs.updateOne(
      { _id: value.id, version: expectedVersion },
      { $set: { ...this.fields(value), version, record: JSON.stringify(value) } },
    );
    if (matchedCount === 1) return version;
    // Nothing matched: tell a lost race from a record that is not there (only on this path).
    const exists = (await this.docs.countDocuments({ _id: value.id }, { limit: 1 })) > 0;
    if (exists) throw new CasConflictError(`${this.type}/${value.id}`);
    throw new WfError("NOT_FOUND", `${this.type}/${value.id} does not exist`);
  }

  async delete(id: string): Promise<void> {
    await this.docs.deleteOne({ _id: id });
  }

  /** Deletes the record only while it is still at `version`. */
  protected async deleteAt(id: string, version: number): Promise<void> {
    await this.docs.deleteOne({ _id: id, version });
  }

  protected async page(filter: Filter<StoredDoc>, sort: Sort, query: PageQuery): Promise<Page<T>> {
    const { skip, limit } = pageWindow(query);
    const [docs, total] = await Promise.all([
      this.docs.find(filter).sort(sort).skip(skip).limit(limit).toArray(),
      this.docs.countDocuments(filter),
    ]);
    return { items: docs.map((doc) => this.#parse(doc)), total };
  }

  protected async all(filter: Filter<StoredDoc>, sort: Sort, limit = 0, options?: FindOptions): Promise<T[]> {
    const docs = await this.docs.find(filter, options).sort(sort).limit(limit).toArray();
    return docs.map((doc) => this.#parse(doc));
  }

  protected count(filter: Filter<StoredDoc>, options?: CountDocumentsOptions): Promise<number> {
    return this.docs.countDocuments(filter, options);
  }

  #parse(doc: StoredDoc): T {
    return parseRecord(this.schema, JSON.parse(doc.record), this.type, doc._id);
  }
}
