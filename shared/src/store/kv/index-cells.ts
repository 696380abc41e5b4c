import type { z } from "zod";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";
import { parseRecord } from "../parse-record";
import type { CasCells, Versioned } from "../port";
import type { IndexKeys } from "./index-keys";
import { keyToken } from "./key-codec";

/**
 * Values kept by compare-and-set as keys `<family>.<key>` of an index bucket, a family no list's filter reaches: a
 * small state per owner needs no bucket of its own. Read at the key's leader, written at the revision read.
 */
export class IndexCells<T> implements CasCells<T> {
  constructor(
    private readonly keys: IndexKeys,
    private readonly family: string,
    private readonly schema: z.ZodType<T>,
  ) {}

  async read(key: string, fallback: T): Promise<Versioned<T>> {
    const subject = this.#subject(key);
    const entry = await this.keys.entry(subject);
    if (entry === null) return { value: fallback, version: 0 };
    const value = entry.operation === "PUT" ? parseRecord(this.schema, entry.json(), "index cells", subject) : fallback;
    return { value, version: entry.revision };
  }

  async write(key: string, value: T, expectedVersion: number): Promise<boolean> {
    try {
      await this.keys.put(this.#subject(key), JSON.stringify(value), expectedVersion);
      return true;
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      throw err;
    }
  }

  #subject(key: string): string {
    return `${this.family}.${keyToken(key)}`;
  }
}
