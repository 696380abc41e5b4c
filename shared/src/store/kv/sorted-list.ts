/** Chunks split past this length: inserts and removals cost O(log n + CHUNK), a page walk O(n / CHUNK). */
const CHUNK = 512;

/**
 * A sorted list of items with unique string keys that answers "the items at offset k from the
 * end" without walking the items before them: sorted chunks of bounded length, so an insert or
 * removal moves at most one chunk's items and a page skips whole chunks by their lengths.
 */
export class SortedList<T> {
  readonly #chunks: T[][] = [];
  #size = 0;

  constructor(private readonly keyOf: (item: T) => string) {}

  get size(): number {
    return this.#size;
  }

  /** The item with `key`, if listed. */
  find(key: string): T | undefined {
    if (this.#pastEnd(key)) return undefined;
    const chunk = this.#chunks[this.#chunkFor(key)];
    if (!chunk) return undefined;
    const i = this.#indexIn(chunk, key);
    return i < chunk.length && this.keyOf(chunk[i]!) === key ? chunk[i] : undefined;
  }

  /** Adds `item`, or replaces the item of the same key. */
  put(item: T): void {
    const key = this.keyOf(item);
    if (this.#chunks.length === 0) {
      this.#chunks.push([item]);
      this.#size = 1;
      return;
    }
    // Nearly every insert is the newest item, greater than all: no search for it.
    const newest = this.#pastEnd(key);
    const c = newest ? this.#chunks.length - 1 : this.#chunkFor(key);
    const chunk = this.#chunks[c]!;
    const i = newest ? chunk.length : this.#indexIn(chunk, key);
    if (i < chunk.length && this.keyOf(chunk[i]!) === key) {
      chunk[i] = item;
      return;
    }
    if (i === chunk.length) chunk.push(item);
    else chunk.splice(i, 0, item);
    this.#size += 1;
    if (chunk.length > CHUNK) this.#chunks.splice(c + 1, 0, chunk.splice(CHUNK / 2));
  }

  /** Removes the item with `key`; false when none was listed. */
  delete(key: string): boolean {
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c];
    if (!chunk) return false;
    const i = this.#indexIn(chunk, key);
    if (i === chunk.length || this.keyOf(chunk[i]!) !== key) return false;
    chunk.splice(i, 1);
    this.#size -= 1;
    if (chunk.length === 0) this.#chunks.splice(c, 1);
    return true;
  }

  /** Up to `limit` items from the greatest down, after skipping the `skip` greatest. */
  descending(skip: number, limit: number): T[] {
    const out: T[] = [];
    let c = this.#chunks.length - 1;
    while (c >= 0 && skip >= this.#chunks[c]!.length) skip -= this.#chunks[c--]!.length;
    for (; c >= 0 && out.length < limit; c--, skip = 0) {
      const chunk = this.#chunks[c]!;
      for (let i = chunk.length - 1 - skip; i >= 0 && out.length < limit; i--) out.push(chunk[i]!);
    }
    return out;
  }

  /** Up to `limit` items from the least up whose key is below `below` and, given `above`, above it. */
  ascendingBetween(below: string, limit: number, above?: string): T[] {
    const out: T[] = [];
    let c = 0;
    let i = 0;
    if (above !== undefined) {
      if (this.#pastEnd(above) || this.#chunks.length === 0) return out;
      c = this.#chunkFor(above);
      i = this.#indexIn(this.#chunks[c]!, above);
    }
    for (; c < this.#chunks.length; c++, i = 0) {
      const chunk = this.#chunks[c]!;
      for (; i < chunk.length; i++) {
        const key = this.keyOf(chunk[i]!);
        if (key === above) continue;
        if (out.length >= limit || key >= below) return out;
        out.push(chunk[i]!);
      }
    }
    return out;
  }

  /** How many items have a key greater than `key`. */
  countAbove(key: string): number {
    let count = 0;
    let c = this.#chunks.length - 1;
    while (c >= 0 && this.keyOf(this.#chunks[c]![0]!) > key) count += this.#chunks[c--]!.length;
    if (c < 0) return count;
    const chunk = this.#chunks[c]!;
    const i = this.#indexIn(chunk, key);
    return count + chunk.length - (i < chunk.length && this.keyOf(chunk[i]!) === key ? i + 1 : i);
  }

  /** Whether `key` is greater than every listed key. */
  #pastEnd(key: string): boolean {
    const last = this.#chunks.at(-1);
    return last !== undefined && this.keyOf(last[last.length - 1]!) < key;
  }

  /** The chunk whose range holds `key`: the first whose last key is at least `key`, else the last. */
  #chunkFor(key: string): number {
    let lo = 0;
    let hi = this.#chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.#chunks[mid]!;
      if (this.keyOf(chunk[chunk.length - 1]!) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first index in `chunk` whose key is at least `key`. */
  #indexIn(chunk: T[], key: string): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keyOf(chunk[mid]!) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
