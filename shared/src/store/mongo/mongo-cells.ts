import type { Collection } from "mongodb";
import type { z } from "zod";
import { parseRecord } from "../parse-record";
import type { CasCells, Versioned } from "../port";
import { isDuplicateKey } from "./mongo-collection";

/** A cell's document: `version` its compare-and-set counter, `value` its value as JSON. */
export interface CellDoc {
  _id: string;
  version: number;
  value: string;
}

/** Values kept by compare-and-set, one document per key of a collection of their own; read at the primary. */
export class MongoCells<T> implements CasCells<T> {
  constructor(
    private readonly docs: Collection<CellDoc>,
    private readonly schema: z.ZodType<T>,
  ) {}

  async read(key: string, fallback: T): Promise<Versioned<T>> {
    const doc = await this.docs.findOne({ _id: key }, { readPreference: "primary" });
    if (doc === null) return { value: fallback, version: 0 };
    return {
      value: parseRecord(this.schema, JSON.parse(doc.value), this.docs.collectionName, key),
      version: doc.version,
    };
  }

  async write(key: string, value: T, expectedVersion: number): Promise<boolean> {
    const json = JSON.stringify(value);
    if (expectedVersion === 0) {
      try {
        await this.docs.insertOne({ _id: key, version: 1, value: json });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    }
    const { matchedCount } = await this.docs.updateOne(
      { _id: key, version: expectedVersion },
      { $set: { version: expectedVersion + 1, value: json } },
    );
    return matchedCount === 1;
  }
}
