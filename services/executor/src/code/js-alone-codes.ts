import { hash } from "node:crypto";

/** A run alone at or over this is heavy: in a call with others it would hold them for as long. */
export const HEAVY_MS = 2;
/** Runs alone a code makes, once found heavy or in a call that failed, before it shares calls again. */
export const ALONE_RUNS = 20;
/** Codes remembered, by a hash of each; past this the one found longest ago is forgotten, and shares calls again. */
const MAX_CODES = 1_024;

/**
 * Which JavaScript codes run alone in their isolate call, not with their owner's other runs (js-steps.ts): those
 * whose last run alone was heavy, and those of a shared call that failed (past its time budget, or its memory limit).
 * Such a code shares calls again after ALONE_RUNS light runs alone: one that was only unlucky comes back, and one that
 * keeps failing calls costs one failed call per ALONE_RUNS of its runs at most.
 */
export class AloneCodes {
  /** Runs alone left, per code (its codeKey). */
  private readonly left = new Map<string, number>();

  alone(key: string): boolean {
    return this.left.has(key);
  }

  /** A call that held the code with others failed. */
  failedShared(key: string): void {
    this.set(key);
  }

  /** The code ran alone for `ms`. */
  ranAlone(key: string, ms: number): void {
    if (ms >= HEAVY_MS) return this.set(key);
    const left = this.left.get(key);
    if (left === undefined) return;
    if (left <= 1) this.left.delete(key);
    else this.left.set(key, left - 1);
  }

  private set(key: string): void {
    this.left.delete(key);
    this.left.set(key, ALONE_RUNS);
    if (this.left.size > MAX_CODES) this.left.delete(this.left.keys().next().value!);
  }
}

/**
 * What AloneCodes knows a code by: a hash, so that what it keeps stays small however long the codes. A collision only
 * lets a code share calls, or keeps it from them, for a while: SHA-1 is enough.
 */
export function codeKey(code: string): string {
  return hash("sha1", code, "base64");
}
