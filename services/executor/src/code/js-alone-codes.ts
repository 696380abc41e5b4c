/** A run alone at or over this is heavy: in a call with others it would hold them for as long. */
export const HEAVY_MS = 2;
/** Runs alone a code makes, once found heavy or in a call that failed, before it shares calls again. */
export const ALONE_RUNS = 20;
/** Codes remembered; past this the one found longest ago is forgotten, and shares calls again. */
const MAX_CODES = 1_024;

/**
 * Which JavaScript codes run alone in their isolate call, not with their owner's other runs (js-steps.ts): those
 * whose last run alone was heavy, and those of a shared call that failed (past its time budget, its memory, an abort).
 * Such a code shares calls again after ALONE_RUNS light runs alone: one that was only unlucky comes back, and one that
 * keeps failing calls costs one failed call per ALONE_RUNS of its runs at most.
 */
export class AloneCodes {
  /** Runs alone left, per code. */
  private readonly left = new Map<string, number>();

  alone(code: string): boolean {
    return this.left.has(code);
  }

  /** A call that held `code` with others failed. */
  failedShared(code: string): void {
    this.set(code);
  }

  /** `code` ran alone for `ms`. */
  ranAlone(code: string, ms: number): void {
    if (ms >= HEAVY_MS) return this.set(code);
    const left = this.left.get(code);
    if (left === undefined) return;
    if (left <= 1) this.left.delete(code);
    else this.left.set(code, left - 1);
  }

  private set(code: string): void {
    this.left.delete(code);
    this.left.set(code, ALONE_RUNS);
    if (this.left.size > MAX_CODES) this.left.delete(this.left.keys().next().value!);
  }
}
