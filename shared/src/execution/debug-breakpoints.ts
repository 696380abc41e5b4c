import { CasConflictError } from "../errors/index";
import type { Store } from "../store/port";
import { Breakpoint, withBreakpointIds, type BreakpointInput, type DebugState } from "./debug";
import { TERMINAL_STATUSES } from "./snapshot";

export interface BreakpointsChange {
  breakpoints: readonly BreakpointInput[];
  /** The revision of the list this change was made on (`debug.breakpointsRevision` as the sender read it). */
  revision: number;
  /** Who makes it (a user id): announced with it. */
  by: string;
}

export type BreakpointsChangeResult =
  | { ok: true; breakpoints: Breakpoint[]; revision: number }
  /**
   * `not_found`: no such execution; `not_debug`: not a debug run; `ended`: it has ended; `stale`: the list was
   * replaced since the revision the change was made on (read it again and make the change there).
   */
  | { ok: false; reason: "not_found" | "not_debug" | "ended" | "stale"; message: string; revision?: number };

/**
 * Replaces a debug run's breakpoints on its record, by compare-and-set: only if the list is still at the revision the
 * change was made on, which it then moves on by one. Of changes made on one list exactly one wins, and a change is
 * never undone by an older one, delivered late or again (docs/debugger.md#breakpoints). The record is read where
 * writes are checked (a replica may lag behind a change the caller has seen). A run holding the record takes the new
 * list up at its next write (Committer.adoptConcurrentChange).
 */
export async function changeBreakpoints(
  store: Store,
  executionId: string,
  change: BreakpointsChange,
): Promise<BreakpointsChangeResult> {
  for (;;) {
    const v = await store.executions.getForWrite(executionId);
    if (!v) return { ok: false, reason: "not_found", message: `execution ${executionId} not found` };
    const snap = v.value;
    const debug = snap.debug;
    if (!debug) return { ok: false, reason: "not_debug", message: `execution ${executionId} is not a debug run` };
    if (TERMINAL_STATUSES.has(snap.status))
      return { ok: false, reason: "ended", message: `execution ${executionId} has ended (${snap.status})` };
    if (debug.breakpointsRevision !== change.revision) {
      const message = `the breakpoints were changed since revision ${change.revision} (now ${debug.breakpointsRevision})`;
      return { ok: false, reason: "stale", message, revision: debug.breakpointsRevision };
    }
    const breakpoints = replaceBreakpoints(
      debug,
      change.breakpoints.map((b) => Breakpoint.parse(b)),
      change.by,
    );
    try {
      await store.executions.update(snap, v.version);
      return { ok: true, breakpoints, revision: debug.breakpointsRevision };
    } catch (err) {
      if (!(err instanceof CasConflictError)) throw err;
    }
  }
}

/**
 * Puts `next` in place of the debug state's breakpoints, as the next revision. An id left out is one that no
 * breakpoint of the run has counted hits or a watched value under, nor one in the list replaced: a new breakpoint
 * starts from nothing. So does one that keeps its id with another definition.
 */
export function replaceBreakpoints(debug: DebugState, next: readonly Breakpoint[], by: string): Breakpoint[] {
  const taken = [
    ...debug.breakpoints.flatMap((b) => (b.id ? [b.id] : [])),
    ...Object.keys(debug.hits),
    ...Object.keys(debug.watched),
  ];
  const breakpoints = withBreakpointIds(next, taken);
  forgetRedefined(debug, debug.breakpoints, breakpoints);
  debug.breakpoints = breakpoints;
  debug.breakpointsBy = by;
  debug.breakpointsRevision += 1;
  return breakpoints;
}

/**
 * A run holding the record takes up the breakpoints written beside it (`theirs`, a later revision than its own): the
 * hits and watched values it counted in memory under an id stay with that id only while its definition stays.
 */
export function adoptBreakpoints(ours: DebugState, theirs: DebugState): void {
  if (theirs.breakpointsRevision === ours.breakpointsRevision) return;
  forgetRedefined(ours, ours.breakpoints, theirs.breakpoints);
  ours.breakpoints = theirs.breakpoints;
  ours.breakpointsBy = theirs.breakpointsBy;
  ours.breakpointsRevision = theirs.breakpointsRevision;
  ours.breakpointsAnnounced = Math.max(ours.breakpointsAnnounced, theirs.breakpointsAnnounced);
}

/** Drops what `debug` counted for every id of `after` that `before` did not have with the same definition. */
function forgetRedefined(debug: DebugState, before: readonly Breakpoint[], after: readonly Breakpoint[]): void {
  const was = new Map(before.map((b) => [b.id, definitionOf(b)]));
  for (const b of after) {
    if (!b.id || was.get(b.id) === definitionOf(b)) continue;
    delete debug.hits[b.id];
    delete debug.watched[b.id];
    for (const w of debug.waiting) {
      delete w.watches?.[b.id];
      delete w.hits?.[b.id];
    }
    for (const h of debug.held) delete h.hits?.[b.id];
    for (const p of debug.boundariesPassing) delete p.hits[b.id];
  }
}

/**
 * Whether `a` and `b` are one breakpoint, defined alike (enabled or not): what one counted is the other's. A run
 * judging a point with `a` takes its hit as `b`'s only then.
 */
export function sameBreakpoint(a: Breakpoint, b: Breakpoint): boolean {
  return a.id === b.id && definitionOf(a) === definitionOf(b);
}

/** What a breakpoint pauses on, comparable: enabling or disabling one keeps its count. */
function definitionOf(b: Breakpoint): string {
  const { enabled: _enabled, ...rest } = b;
  return JSON.stringify(Object.entries(rest).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}
