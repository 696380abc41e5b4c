import { hash } from "node:crypto";
import { Lru } from "@wf/shared/pools";

/** A run alone at or over this is heavy: in a call with others it would hold them for as long. */
export const HEAVY_MS = 2;
/** Runs alone a code makes, once found heavy or in a call that failed, before it shares calls again. */
export const ALONE_RUNS = 20;
/** Codes remembered per owner; past this the owner's code used longest ago is forgotten, and shares calls again. */
export const CODES_PER_OWNER = 64;
/** Owners remembered; past this the owner whose codes were used longest ago is forgotten. */
const MAX_OWNERS = 1_024;

/**
 * Which JavaScript codes run alone in their isolate call, not with their owner's other runs (js-steps.ts): those
 * whose last run alone was heavy, and those of a shared call that failed (past its time budget, or its memory limit).
 * Such a code shares calls again after ALONE_RUNS light runs alone: one that was only unlucky comes back, and one that
 * keeps failing calls costs one failed call per ALONE_RUNS of its runs at most. Each owner has room of its own: one
 * owner's many codes push out only its own.
 */
export class AloneCodes {
  /** Runs alone left, per owner and code (its codeKey). */
  private readonly owners = new Lru<string, Lru<string, number>>(MAX_OWNERS);

  alone(owner: string, key: string): boolean {
    return this.owners.get(owner)?.get(key) !== undefined;
  }

  /** A call that held the code with others failed. */
  failedShared(owner: string, key: string): void {
    this.set(owner, key);
  }

  /** The code ran alone for `ms`. */
  ranAlone(owner: string, key: string, ms: number): void {
    if (ms >= HEAVY_MS) return this.set(owner, key);
    const codes = this.owners.get(owner);
    const left = codes?.get(key);
    if (!codes || left === undefined) return;
    if (left > 1) return void codes.set(key, left - 1);
    codes.delete(key);
    if (codes.size === 0) this.owners.delete(owner);
  }

  private set(owner: string, key: string): void {
    const codes = this.owners.get(owner) ?? new Lru<string, number>(CODES_PER_OWNER);
    this.owners.set(owner, codes);
    codes.set(key, ALONE_RUNS);
  }
}

/**
 * What AloneCodes knows a code by: a hash, so that what it keeps stays small however long the codes. A collision only
 * lets a code share calls, or keeps it from them, for a while: SHA-1 is enough.
 */
export function codeKey(code: string): string {
  return hash("sha1", code, "base64");
}
