// Types of owner-lru.mjs, which is plain JavaScript: the expression hosts' thread runs it without tsx.

/**
 * Entries that several owners share room for, bounded in count and in size. Past either bound, the owner holding the
 * most (its share of the count and of the size together) gives up its least recently used entry.
 */
export class OwnerLru<K, V> {
  constructor(maxCount: number, maxSize: number);
  get count(): number;
  get size(): number;
  /** The entry's value, now its owner's most recently used; undefined when not held. */
  get(key: K): V | undefined;
  /** Whether `key` is held; its place is left as it was. */
  has(key: K): boolean;
  /** Holds `value` for `owner` (in place of what `key` held); returns the entries it pushed out, never `key`'s. */
  set(key: K, owner: string, value: V, size: number): Array<[K, V]>;
  delete(key: K): void;
}
