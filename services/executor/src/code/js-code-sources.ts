import { codeKey } from "./js-alone-codes";
import { stepFunction } from "./js-realm";
import { OwnerLru } from "@wf/shared/pools";
import { ownerOf } from "./pool-shares";
import type { CodeRequest } from "./types";

/** Marks a TypeScript code's source: a JavaScript one opens with its function, so the two never share a maker. */
const TYPESCRIPT = "ts:";
/** Codes whose source and key are kept, and their characters; a code over KEPT_MAX_CHARS is worked out at each run. */
const KEPT_CODES = 256;
const KEPT_CHARS = 4 * 1024 * 1024;
const KEPT_MAX_CHARS = 256 * 1024;

/** What a run of a code needs of it: its step function's source, and its key. */
export interface CodeSource {
  /** The step's function, TypeScript's types still in it (marked): what its isolate's maker is known by. */
  source: string;
  /** What AloneCodes knows the code by. */
  key: string;
}

interface Kept extends CodeSource {
  typescript: boolean;
}

/**
 * Each code's source and key, worked out once: a run of a code its connection holds (code-refs.ts) comes with the
 * same string every time, found here at once. Parsing, wrapping and hashing 10 KB of code at every run took the host
 * 0.34-0.36 ms of CPU per 3-step workflow, 0.11 ms once it did not (2026-12-05). Bounded in codes and characters; past
 * either, the owner holding the most gives up its least recently run (OwnerLru).
 */
export class CodeSources {
  /** By code; an entry's size is its code's characters. */
  readonly #kept = new OwnerLru<string, Kept>(KEPT_CODES, KEPT_CHARS);

  of(req: CodeRequest): CodeSource {
    const code = req.code ?? "";
    const typescript = req.language === "typescript";
    const kept = this.#kept.get(code);
    if (kept !== undefined && kept.typescript === typescript) return kept;
    const source = sourceOf(code, typescript);
    const made: Kept = { source, key: codeKey(source), typescript };
    if (code.length <= KEPT_MAX_CHARS) this.#kept.set(code, ownerOf(req), made, code.length);
    return made;
  }
}

/**
 * The step's function as source, TypeScript's types still in it: their stripping (~40 µs for a light step) is paid
 * once per isolate, when its maker is compiled, not at every run.
 */
function sourceOf(code: string, typescript: boolean): string {
  const fn = stepFunction(code);
  return typescript ? `${TYPESCRIPT}${fn}` : fn;
}

/** A source's JavaScript and whether it is TypeScript's, still to be stripped. */
export function sourceText(source: string): { text: string; typescript: boolean } {
  return source.startsWith(TYPESCRIPT)
    ? { text: source.slice(TYPESCRIPT.length), typescript: true }
    : { text: source, typescript: false };
}
