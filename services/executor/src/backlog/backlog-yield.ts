import type { ConcurrencyBound } from "@wf/shared/nats";

export interface BacklogYieldSettings {
  /** Executions at once normally (WF_EXEC_CONCURRENCY). */
  full: number;
  /** Executions at once when a yield starts, and the fewest while it lasts (WF_EXEC_YIELD_CONCURRENCY); 0 never yields. */
  yielded: number;
  /** Growth of the work queue's backlog, in commands a second, that starts a yield (WF_EXEC_YIELD_GROWTH). */
  growthPerSec: number;
  /** The longest yield in a row (WF_EXEC_YIELD_MAX_MS). */
  maxMs: number;
  /**
   * The share of its drain rate the executor keeps settling while it yields (WF_EXEC_YIELD_DRAIN_SHARE); 0 keeps it
   * at `yielded` all through.
   */
  drainShare: number;
  /**
   * The edges' trigger answers, 99th percentile in ms, at which a yield may start (WF_EXEC_YIELD_EDGE_P99_MS); under
   * half of it, a yield is over. 0: the edges' latency is not judged.
   */
  edgeP99Ms: number;
}

/**
 * `climb`: the concurrency was doubled from a level that settled `before` a second, `waited` once the span in which
 * the new executions began is over (that span is not judged); `hold`: it stays, `samples` spans (CONTROL_MS) so far,
 * before it tries a doubling again.
 */
export type Probe = { phase: "climb"; before: number; waited: boolean } | { phase: "hold"; samples: number };

export type YieldState =
  | { kind: "full" }
  | {
      kind: "yielding";
      since: number;
      concurrency: number;
      /** With no drain rate known yet: where its search for the concurrency that pays stands. */
      probe?: Probe;
    }
  | { kind: "spent" };

/** What one sample says: the work queue's backlog, what has come into it, and the commands this executor has settled. */
export interface BacklogSample {
  /** The consumer's undelivered messages (num_pending). */
  pending: number;
  /** Commands the work queue has ever received (its stream's last sequence): triggers arriving, counted on. */
  arrived: number;
  /** Commands this executor settled since it started, counted on. */
  settled: number;
  /** When it was taken (ms). */
  at: number;
  /** The slowest edge's trigger answers, 99th percentile in ms (edge-latencies.ts); null or unset: no edge is heard. */
  edgeP99Ms?: number | null;
}

/**
 * The span the yield judges the backlog's growth and what it settles over: samples come more often
 * (follow-backlog.ts), so that a yield ends as soon as the triggers stop, but a tenth of a second
 * holds too few commands to steer by.
 */
const CONTROL_MS = 500;
/** Triggers arriving at under this share of the growth that starts a yield: the burst is over, and the yield with it. */
const STOPPED_SHARE = 0.5;
/**
 * Fewer commands than this coming in a sample at that share tell nothing: a growth set so low is
 * judged over half seconds only, as the backlog's growth is.
 */
const MIN_ARRIVALS = 20;
/** Weight of the newest saturated span in the drain rate: a few seconds of draining outweigh an old figure. */
const DRAIN_WEIGHT = 0.3;
/** Above this multiple of its aim, a yield gives executions back to the triggers. */
const OVER_AIM = 1.5;
/** Not knowing its drain rate, a yield doubles its concurrency while that multiplies what it settles by this much. */
const PROBE_GAIN = 1.25;
/** Spans a yield holds a concurrency at which doubling did not pay before it tries again (what pays changes). */
const PROBE_HOLD_SAMPLES = 4;

/**
 * Triggers first: while the executors' work queue grows by `growthPerSec` or more, with triggers still
 * arriving, the executor takes fewer executions at once than `full`, until the backlog stops growing or
 * the triggers stop (a sample in which fewer than half as many arrive ends it at once: a burst's
 * backlog is then drained at full concurrency); after `maxMs` in a row it runs at full concurrency
 * all the same ("spent") until its backlog is drained. Growth and what it settles are judged over
 * spans of CONTROL_MS.
 *
 * Fewer, but not so few that executions starve: the executor learns its drain rate (commands settled a
 * second while it ran at full concurrency with a backlog waiting all through a span, not growing) and, yielding,
 * keeps settling `drainShare` of it, taking more at once while it settles less (it starts at
 * `yielded`, and never takes fewer) and fewer while it settles well over that. Executions at once and
 * executions a second grow together while their time goes to waiting on JetStream, as it does
 * here, so the concurrency is scaled by what it missed. Before it has ever drained a backlog (a
 * flood from the start), it doubles its concurrency while each doubling multiplies what it settles
 * by 1.25 or more, goes back a step where that stops (past that point its executions only wait for
 * the CPU the triggers need), and tries again every few spans.
 *
 * Deterministic: it sees the queue only through `sample`, with the time of each sample. Why, and
 * what it costs (docs/operations.md#triggers-first-the-executors-yield).
 */
export class BacklogYield implements ConcurrencyBound {
  #state: YieldState = { kind: "full" };
  /** The newest sample: while `sample` judges the next, the one before it. */
  #last: BacklogSample | null = null;
  /** Where the current span began. */
  #spanStart: BacklogSample | null = null;
  #drainPerSec: number | null = null;
  readonly #listeners = new Set<() => void>();

  constructor(private readonly settings: BacklogYieldSettings) {}

  current(): number {
    return this.#state.kind === "yielding" ? this.#state.concurrency : this.settings.full;
  }

  state(): YieldState {
    return this.#state;
  }

  /** Commands a second it settled when it last drained a backlog at full concurrency; null before it did. */
  drainPerSec(): number | null {
    return this.#drainPerSec;
  }

  /** Calls `listener` after each change of state or of the limit; returns what stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  sample(sample: BacklogSample): void {
    const last = this.#last;
    if (last !== null && sample.at <= last.at) return;
    this.#last = sample;
    const span = this.#spanStart;
    if (last === null || span === null || !this.yields()) {
      this.#spanStart ??= sample;
      return;
    }
    const { pending, at } = sample;
    const stopped = this.#stopped(last, sample);
    const state = this.#state;
    if (state.kind === "yielding" && stopped) {
      this.#spanStart = sample;
      this.#move({ kind: "full" });
      return;
    }
    if (at - span.at < CONTROL_MS) return;
    this.#spanStart = sample;
    const seconds = (at - span.at) / 1_000;
    const growthPerSec = (pending - span.pending) / seconds;
    const settledPerSec = Math.max(0, sample.settled - span.settled) / seconds;
    // Draining: a backlog waited all through, at full concurrency, and did not grow. A span in which it grew
    // is a flood, whose start shows the time executions take more than the rate they are settled at.
    if (state.kind !== "yielding" && span.pending > 0 && pending > 0 && growthPerSec <= 0)
      this.#learnDrain(settledPerSec);
    const edges = this.#edges(sample);
    if (state.kind === "full" && growthPerSec >= this.settings.growthPerSec && !stopped && edges === "slow")
      this.#move({ kind: "yielding", since: at, concurrency: this.settings.yielded });
    else if (state.kind === "yielding" && growthPerSec <= 0) this.#move({ kind: "full" });
    else if (state.kind === "yielding" && at - state.since >= this.settings.maxMs) this.#move({ kind: "spent" });
    else if (state.kind === "yielding" && edges === "fast") this.#move({ kind: "full" });
    else if (state.kind === "yielding") this.#keepShare(state, settledPerSec);
    else if (state.kind === "spent" && pending <= this.settings.full) this.#move({ kind: "full" });
  }

  /** Whether triggers came at under STOPPED_SHARE of the growth from `from` to `to`, where enough would come to tell. */
  #stopped(from: BacklogSample, to: BacklogSample): boolean {
    const expected = (STOPPED_SHARE * this.settings.growthPerSec * (to.at - from.at)) / 1_000;
    return expected >= MIN_ARRIVALS && to.arrived - from.arrived < expected;
  }

  /**
   * `slow`: some edge answers triggers at or over the set 99th percentile, or it is not judged; `fast`: every edge heard
   * answers in under half of it (or none is heard: none has triggers to answer); `fair`: in between.
   */
  #edges(sample: BacklogSample): "slow" | "fair" | "fast" {
    const aim = this.settings.edgeP99Ms;
    const p99 = sample.edgeP99Ms ?? 0;
    if (aim <= 0 || p99 >= aim) return "slow";
    return p99 < aim / 2 ? "fast" : "fair";
  }

  /** Whether it ever yields: a yielded concurrency above 0 and below the full one. */
  yields(): boolean {
    return this.settings.yielded > 0 && this.settings.yielded < this.settings.full;
  }

  #learnDrain(settledPerSec: number): void {
    const known = this.#drainPerSec;
    this.#drainPerSec = known === null ? settledPerSec : known + DRAIN_WEIGHT * (settledPerSec - known);
  }

  #keepShare(state: Extract<YieldState, { kind: "yielding" }>, settledPerSec: number): void {
    const drain = this.#drainPerSec;
    if (this.settings.drainShare <= 0) return;
    const n = state.concurrency;
    if (drain === null || drain <= 0) {
      this.#probe(state, settledPerSec);
      return;
    }
    const aim = this.settings.drainShare * drain;
    let next = n;
    if (settledPerSec < aim) next = Math.min(2 * n, Math.ceil((n * aim) / Math.max(settledPerSec, 1)));
    else if (settledPerSec > OVER_AIM * aim) next = Math.floor((n * aim) / settledPerSec);
    next = Math.min(this.settings.full, Math.max(this.settings.yielded, next));
    if (next !== n) this.#move({ ...state, concurrency: next });
  }

  #probe(state: Extract<YieldState, { kind: "yielding" }>, settledPerSec: number): void {
    const { full, yielded } = this.settings;
    const n = state.concurrency;
    const probe = state.probe ?? { phase: "hold", samples: PROBE_HOLD_SAMPLES };
    const climb = (): void =>
      this.#move({ ...state, concurrency: 2 * n, probe: { phase: "climb", before: settledPerSec, waited: false } });
    // The span of a doubling holds its new executions' start, not what they settle once under way.
    if (probe.phase === "climb" && !probe.waited) this.#move({ ...state, probe: { ...probe, waited: true } });
    else if (probe.phase === "hold") {
      if (probe.samples + 1 >= PROBE_HOLD_SAMPLES && 2 * n <= full) climb();
      else this.#move({ ...state, probe: { phase: "hold", samples: probe.samples + 1 } });
    } else if (settledPerSec >= PROBE_GAIN * probe.before && 2 * n <= full) climb();
    else if (settledPerSec >= PROBE_GAIN * probe.before) this.#move({ ...state, probe: { phase: "hold", samples: 0 } });
    // Doubling did not pay: back to where it came from, which settled nearly as much with half as many.
    else this.#move({ ...state, concurrency: Math.max(yielded, n / 2), probe: { phase: "hold", samples: 0 } });
  }

  #move(next: YieldState): void {
    this.#state = next;
    for (const listener of this.#listeners) listener();
  }
}
