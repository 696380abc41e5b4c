/** Audit records are budgeted per minute: a refusal past the budget is counted, not recorded. */
export const AUDIT_WINDOW_MS = 60_000;
/** Client addresses counted in one window; refusals from further ones are counted together. */
const SOURCES_KEPT = 10_000;
/** Summaries written for one window: the largest counts by address and reason, then one per reason for the rest. */
const SUMMARIES_KEPT = 100;

/** What a counted refusal came from, and the last request counted from it. */
export interface Counted<E> {
  ip: string;
  reason: string;
  count: number;
  last: E;
  /** When its window ended. */
  windowEnd: number;
}

interface Window<E> {
  start: number;
  recorded: number;
  /** By client address: refusals recorded, and those counted by reason. */
  bySource: Map<string, { recorded: number; counted: Map<string, Counted<E>> }>;
  /** Past SOURCES_KEPT addresses: by reason. */
  rest: Map<string, Counted<E>>;
}

/**
 * Which refused requests the edge records one by one: at most `perSource` a minute from one client
 * address and `perMinute` in all; the others are counted by address and reason, and each window's
 * counts become a few summary records (`drain`). The reason never decides whether a refusal is
 * recorded: a recorded 401 waits for its writes, and its time would tell an unknown key id from a
 * wrong secret. Why a budget (docs/api.md#authentication).
 */
export class AuditBudget<E> {
  #window: Window<E>;
  readonly #ended: Window<E>[] = [];

  constructor(
    private readonly perSource: number,
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {
    this.#window = emptyWindow(windowStart(now()));
  }

  /** Whether this refusal is recorded by itself; if not, it is counted for its window's summary. */
  admit(ip: string, reason: string, entry: E): boolean {
    const w = this.#current();
    let source = w.bySource.get(ip);
    if (source === undefined && w.bySource.size < SOURCES_KEPT)
      w.bySource.set(ip, (source = { recorded: 0, counted: new Map() }));
    if (source !== undefined && source.recorded < this.perSource && w.recorded < this.perMinute) {
      source.recorded += 1;
      w.recorded += 1;
      return true;
    }
    const counts = source?.counted ?? w.rest;
    let counted = counts.get(reason);
    if (counted === undefined)
      counts.set(
        reason,
        (counted = { ip: source ? ip : "*", reason, count: 0, last: entry, windowEnd: w.start + AUDIT_WINDOW_MS }),
      );
    counted.count += 1;
    counted.last = entry;
    return false;
  }

  /**
   * The counts of the windows that ended, for their summary records: the SUMMARIES_KEPT counts
   * (by address and reason) that are largest, and the others added up by reason (address `*`). With `all`,
   * the current window's too (the edge is stopping).
   */
  drain(all = false): Counted<E>[] {
    this.#current();
    const windows = this.#ended.splice(0);
    if (all) {
      windows.push(this.#window);
      this.#window = emptyWindow(windowStart(this.now()));
    }
    return windows.flatMap((w) => summaries(w));
  }

  #current(): Window<E> {
    const start = windowStart(this.now());
    if (start !== this.#window.start) {
      this.#ended.push(this.#window);
      this.#window = emptyWindow(start);
    }
    return this.#window;
  }
}

function summaries<E>(w: Window<E>): Counted<E>[] {
  const counted = [...w.bySource.values()].flatMap((s) => [...s.counted.values()]).sort((a, b) => b.count - a.count);
  const rest = new Map(w.rest);
  for (const c of counted.slice(SUMMARIES_KEPT)) {
    const r = rest.get(c.reason);
    if (r === undefined) rest.set(c.reason, { ...c, ip: "*" });
    else {
      r.count += c.count;
      r.last = c.last;
    }
  }
  return [...counted.slice(0, SUMMARIES_KEPT), ...rest.values()];
}

function emptyWindow<E>(start: number): Window<E> {
  return { start, recorded: 0, bySource: new Map(), rest: new Map() };
}

function windowStart(at: number): number {
  return at - (at % AUDIT_WINDOW_MS);
}
