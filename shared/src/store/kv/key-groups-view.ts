import type { JetStreamManager } from "@nats-io/jetstream";
import { BucketFollower, type StaleMarkers } from "./bucket-follower";
import { fromKeyToken, keyToken } from "./key-codec";

/**
 * The keys of an index bucket in memory, by group (every token of a key but its last two, the sort
 * token and the id), kept up to date by following the bucket (bucket-follower.ts): a page costs a
 * binary search and a slice, where a key scan walks every key under its filter. Only keys `keep`
 * accepts are held, each as one string `<sort>.<id>` (sort tokens have one length, so these sort as
 * the pairs do). The index's removals must write markers (MarkedRemovals), or no key would ever go.
 */
export class KeyGroupsView {
  readonly #groups = new Map<string, string[]>();
  readonly #follower: BucketFollower;

  constructor(
    jsm: JetStreamManager,
    bucket: string,
    private readonly keep: (key: string) => boolean,
    /** What the view lists, in errors: "the approval lists". */
    name: string,
    stale?: StaleMarkers,
  ) {
    this.#follower = new BucketFollower(
      jsm,
      bucket,
      { apply: (key, _m, removed) => this.#apply(key, removed), reset: () => this.#groups.clear() },
      name,
      stale,
    );
  }

  /** Starts following the bucket; pages do it themselves. */
  start(): Promise<void> {
    return this.#follower.start();
  }

  close(): void {
    this.#follower.close();
  }

  /**
   * The keys of one page of `group`, newest first, and how many it holds in all, as of every write stored before the
   * call.
   */
  async page(group: string, skip: number, limit: number): Promise<{ keys: string[]; total: number }> {
    await this.#follower.ready();
    const members = this.#groups.get(group) ?? [];
    const n = members.length;
    const picked = members.slice(Math.max(0, n - skip - limit), Math.max(0, n - skip)).reverse();
    return { keys: picked.map((m) => `${group}.${keyOf(m)}`), total: n };
  }

  #apply(key: string, removed: boolean): void {
    if (!this.keep(key)) return;
    const idDot = key.lastIndexOf(".");
    const sortDot = key.lastIndexOf(".", idDot - 1);
    if (sortDot <= 0) return;
    const group = key.slice(0, sortDot);
    const tail = key.slice(sortDot + 1);
    const member = tail.includes("=")
      ? flat(`${fromKeyToken(key.slice(sortDot + 1, idDot))}.${fromKeyToken(key.slice(idDot + 1))}`)
      : latin1Copy(tail);
    let members = this.#groups.get(group);
    const at = members ? positionOf(members, member) : 0;
    const found = members !== undefined && members[at] === member;
    if (removed) {
      if (!found) return;
      members!.splice(at, 1);
      if (members!.length === 0) this.#groups.delete(group);
      return;
    }
    if (found) return;
    if (!members) this.#groups.set(latin1Copy(group), (members = []));
    // Keys mostly arrive in the order they sort in (by creation time): an append, no move.
    if (at === members.length) members.push(member);
    else members.splice(at, 0, member);
  }
}

/** Where `member` is, or goes, in `members` (sorted). */
function positionOf(members: readonly string[], member: string): number {
  let lo = 0;
  let hi = members.length;
  // Appends are the common case: checked first, without a search.
  if (hi > 0 && members[hi - 1]! < member) return hi;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (members[mid]! < member) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The key's last two tokens again, from a member: the sort token has no dot. */
function keyOf(member: string): string {
  const dot = member.indexOf(".");
  return `${member.slice(0, dot)}.${keyToken(member.slice(dot + 1))}`;
}

/**
 * A copy of an ASCII `s` that holds no reference to the string it was cut from: V8 keeps a slice
 * of a subject as a view of the whole subject, which would keep every key's subject in memory.
 */
function latin1Copy(s: string): string {
  return Buffer.from(s, "latin1").toString("latin1");
}

/** A flat copy of a string built from pieces (a decoded key may hold any character). */
function flat(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
}
