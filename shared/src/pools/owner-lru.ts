interface OwnerEntries<K, V> {
  /** Least recently used first. */
  entries: Map<K, { value: V; size: number }>;
  size: number;
}

/**
 * Entries that several owners share room for, bounded in count and in size. Past either bound, the owner holding the
 * most (its share of the count and of the size together) gives up its least recently used entry: an owner churning
 * through many entries pushes out its own, not those of owners that hold their share or less, and an owner alone
 * has all the room.
 */
export class OwnerLru<K, V> {
  readonly #owners = new Map<string, OwnerEntries<K, V>>();
  readonly #ownerOf = new Map<K, string>();
  #size = 0;

  constructor(
    private readonly maxCount: number,
    private readonly maxSize: number,
  ) {}

  get count(): number {
    return this.#ownerOf.size;
  }

  get size(): number {
    return this.#size;
  }

  /** The entry's value, now its owner's most recently used; undefined when not held. */
  get(key: K): V | undefined {
    const owner = this.#ownerOf.get(key);
    if (owner === undefined) return undefined;
    const entries = this.#owners.get(owner)!.entries;
    const entry = entries.get(key)!;
    entries.delete(key);
    entries.set(key, entry);
    return entry.value;
  }

  /** Whether `key` is held; its place is left as it was. */
  has(key: K): boolean {
    return this.#ownerOf.has(key);
  }

  /** Holds `value` for `owner` (in place of what `key` held); returns the entries it pushed out, never `key`'s. */
  set(key: K, owner: string, value: V, size: number): Array<[K, V]> {
    this.delete(key);
    let held = this.#owners.get(owner);
    if (held === undefined) {
      held = { entries: new Map(), size: 0 };
      this.#owners.set(owner, held);
    }
    held.entries.set(key, { value, size });
    held.size += size;
    this.#size += size;
    this.#ownerOf.set(key, owner);
    const out: Array<[K, V]> = [];
    while (this.count > this.maxCount || this.#size > this.maxSize) {
      const victim = this.#heaviest(key);
      if (victim === undefined) break;
      out.push([victim, this.#owners.get(this.#ownerOf.get(victim)!)!.entries.get(victim)!.value]);
      this.delete(victim);
    }
    return out;
  }

  delete(key: K): void {
    const owner = this.#ownerOf.get(key);
    if (owner === undefined) return;
    const held = this.#owners.get(owner)!;
    const entry = held.entries.get(key)!;
    held.entries.delete(key);
    held.size -= entry.size;
    this.#size -= entry.size;
    this.#ownerOf.delete(key);
    if (held.entries.size === 0) this.#owners.delete(owner);
  }

  /** The least recently used entry of the owner holding the most, other than `keep`. */
  #heaviest(keep: K): K | undefined {
    let victim: K | undefined;
    let most = -1;
    for (const held of this.#owners.values()) {
      const weight = held.entries.size / this.maxCount + held.size / this.maxSize;
      if (weight <= most) continue;
      for (const key of held.entries.keys()) {
        if (key === keep) continue;
        victim = key;
        most = weight;
        break;
      }
    }
    return victim;
  }
}
