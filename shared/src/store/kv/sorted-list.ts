/** Chunks hold at most this many handles: inserts and removals cost O(log n + CHUNK), a page walk O(n / CHUNK). */
const CHUNK = 512;

/** A run of handles in key order, in a typed array the garbage collector never walks. */
interface Chunk {
  items: Int32Array;
  length: number;
}

const newChunk = (): Chunk => ({ items: new Int32Array(CHUNK), length: 0 });

/**
 * A sorted list of handles (non-negative integers naming items held elsewhere) with unique string
 * keys, that answers "the items at offset k from the end" without walking the items before them:
 * sorted chunks of bounded length, so an insert or removal moves at most one chunk's handles and
 * a page skips whole chunks by their lengths. Handles sit in typed arrays, so a list of a million
 * costs the heap four bytes each and no work when the collector marks.
 */
export class SortedList {
  readonly #chunks: Chunk[] = [];
  #size = 0;

  constructor(private readonly keyOf: (handle: number) => string) {}

  get size(): number {
    return this.#size;
  }

  /** The handle listed under `key`, or -1. */
  find(key: string): number {
    if (this.#chunks.length === 0 || this.#pastEnd(key)) return -1;
    const chunk = this.#chunks[this.#chunkFor(key)]!;
    const i = this.#indexIn(chunk, key);
    return i < chunk.length && this.keyOf(chunk.items[i]!) === key ? chunk.items[i]! : -1;
  }

  /** Adds `handle`, or puts it in place of the handle listed under the same key. */
  put(handle: number): void {
    const key = this.keyOf(handle);
    const last = this.#chunks.at(-1);
    // Nearly every insert is the newest item, greater than all: no search for it, and a full last
    // chunk is followed by a new one rather than split, so that chunks behind the newest stay full.
    if (last === undefined || this.#pastEnd(key)) {
      if (last === undefined || last.length === CHUNK) this.#chunks.push(newChunk());
      const chunk = this.#chunks.at(-1)!;
      chunk.items[chunk.length++] = handle;
      this.#size += 1;
      return;
    }
    const c = this.#chunkFor(key);
    let chunk = this.#chunks[c]!;
    let i = this.#indexIn(chunk, key);
    if (i < chunk.length && this.keyOf(chunk.items[i]!) === key) {
      chunk.items[i] = handle;
      return;
    }
    if (chunk.length === CHUNK) {
      const upper = newChunk();
      upper.items.set(chunk.items.subarray(CHUNK / 2));
      upper.length = CHUNK / 2;
      chunk.length = CHUNK / 2;
      this.#chunks.splice(c + 1, 0, upper);
      if (i > CHUNK / 2) {
        chunk = upper;
        i -= CHUNK / 2;
      }
    }
    chunk.items.copyWithin(i + 1, i, chunk.length);
    chunk.items[i] = handle;
    chunk.length += 1;
    this.#size += 1;
  }

  /** Removes the handle listed under `key`; false when none was. */
  delete(key: string): boolean {
    if (this.#chunks.length === 0) return false;
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c]!;
    const i = this.#indexIn(chunk, key);
    if (i === chunk.length || this.keyOf(chunk.items[i]!) !== key) return false;
    chunk.items.copyWithin(i, i + 1, chunk.length);
    chunk.length -= 1;
    this.#size -= 1;
    if (chunk.length === 0) this.#chunks.splice(c, 1);
    return true;
  }

  /** Up to `limit` handles from the greatest key down, after skipping the `skip` greatest. */
  descending(skip: number, limit: number): number[] {
    const out: number[] = [];
    let c = this.#chunks.length - 1;
    while (c >= 0 && skip >= this.#chunks[c]!.length) skip -= this.#chunks[c--]!.length;
    for (; c >= 0 && out.length < limit; c--, skip = 0) {
      const chunk = this.#chunks[c]!;
      for (let i = chunk.length - 1 - skip; i >= 0 && out.length < limit; i--) out.push(chunk.items[i]!);
    }
    return out;
  }

  /** Up to `limit` handles from the least key up whose key is below `below` and, given `above`, above it. */
  ascendingBetween(below: string, limit: number, above?: string): number[] {
    const out: number[] = [];
    let c = 0;
    let i = 0;
    if (above !== undefined) {
      if (this.#chunks.length === 0 || this.#pastEnd(above)) return out;
      c = this.#chunkFor(above);
      i = this.#indexIn(this.#chunks[c]!, above);
    }
    for (; c < this.#chunks.length; c++, i = 0) {
      const chunk = this.#chunks[c]!;
      for (; i < chunk.length; i++) {
        const key = this.keyOf(chunk.items[i]!);
        if (key === above) continue;
        if (out.length >= limit || key >= below) return out;
        out.push(chunk.items[i]!);
      }
    }
    return out;
  }

  /** How many handles have a key greater than `key`. */
  countAbove(key: string): number {
    let count = 0;
    let c = this.#chunks.length - 1;
    while (c >= 0 && this.keyOf(this.#chunks[c]!.items[0]!) > key) count += this.#chunks[c--]!.length;
    if (c < 0) return count;
    const chunk = this.#chunks[c]!;
    const i = this.#indexIn(chunk, key);
    return count + chunk.length - (i < chunk.length && this.keyOf(chunk.items[i]!) === key ? i + 1 : i);
  }

  /** Whether `key` is greater than every listed key (the list not empty). */
  #pastEnd(key: string): boolean {
    const last = this.#chunks.at(-1)!;
    return this.keyOf(last.items[last.length - 1]!) < key;
  }

  /** The chunk whose range holds `key`: the first whose last key is at least `key`, else the last. */
  #chunkFor(key: string): number {
    let lo = 0;
    let hi = this.#chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.#chunks[mid]!;
      if (this.keyOf(chunk.items[chunk.length - 1]!) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first index in `chunk` whose key is at least `key`. */
  #indexIn(chunk: Chunk, key: string): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keyOf(chunk.items[mid]!) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
