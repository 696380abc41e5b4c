// Plain JS, its types in owner-lru.d.mts: the expression hosts' thread (eval-thread.mjs) runs it as it is, without
// tsx (Node stripping a .ts file's types took each new thread 0.3-0.7 s on a loaded 2-core machine).

/**
 * Entries that several owners share room for, bounded in count and in size. Past either bound, the owner holding the
 * most (its share of the count and of the size together) gives up its least recently used entry: an owner churning
 * through many entries pushes out its own, not those of owners that hold their share or less, and an owner alone
 * has all the room.
 */
export class OwnerLru {
  /** By owner: `entries` (key → { value, size }, least recently used first) and their `size`. */
  #owners = new Map();
  /** Each key's owner. */
  #ownerOf = new Map();
  #maxCount;
  #maxSize;
  #size = 0;

  constructor(maxCount, maxSize) {
    this.#maxCount = maxCount;
    this.#maxSize = maxSize;
  }

  get count() {
    return this.#ownerOf.size;
  }

  get size() {
    return this.#size;
  }

  /** The entry's value, now its owner's most recently used; undefined when not held. */
  get(key) {
    const owner = this.#ownerOf.get(key);
    if (owner === undefined) return undefined;
    const entries = this.#owners.get(owner).entries;
    const entry = entries.get(key);
    entries.delete(key);
    entries.set(key, entry);
    return entry.value;
  }

  /** Whether `key` is held; its place is left as it was. */
  has(key) {
    return this.#ownerOf.has(key);
  }

  /** Holds `value` for `owner` (in place of what `key` held); returns the entries it pushed out, never `key`'s. */
  set(key, owner, value, size) {
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
    const out = [];
    while (this.count > this.#maxCount || this.#size > this.#maxSize) {
      const victim = this.#heaviest(key);
      if (victim === undefined) break;
      out.push([victim, this.#owners.get(this.#ownerOf.get(victim)).entries.get(victim).value]);
      this.delete(victim);
    }
    return out;
  }

  delete(key) {
    const owner = this.#ownerOf.get(key);
    if (owner === undefined) return;
    const held = this.#owners.get(owner);
    const entry = held.entries.get(key);
    held.entries.delete(key);
    held.size -= entry.size;
    this.#size -= entry.size;
    this.#ownerOf.delete(key);
    if (held.entries.size === 0) this.#owners.delete(owner);
  }

  /** The least recently used entry of the owner holding the most, other than `keep`. */
  #heaviest(keep) {
    let victim;
    let most = -1;
    for (const held of this.#owners.values()) {
      const weight = held.entries.size / this.#maxCount + held.size / this.#maxSize;
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
