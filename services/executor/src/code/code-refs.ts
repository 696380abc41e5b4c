import type { ClientMessage } from "./protocol";

/**
 * A step's code travels to its runner once per connection, not in every run: the runner holds it under an id, and a
 * run names the id. A 10 KB code in every run line cost the executor its serialisation and the runner its parse and
 * hash at each run: 3-step workflows of three such steps ran at 0.40-0.42 of the rate of light ones, 0.60-0.66 once
 * their code went once (2026-12-05, BENCH_PARTS=code-size).
 *
 * The client decides what the runner holds: it sends a code before the first run that names it and tells the runner
 * to forget the oldest past its bounds, so the runner never drops one a queued run still names. A code longer than
 * REF_MAX_CHARS travels in its runs, as before.
 */
export const REF_MAX_CHARS = 256 * 1024;
/** What a client has a runner hold at once, per connection: codes, and their characters. */
export const SENT_MAX_CODES = 256;
export const SENT_MAX_CHARS = 4 * 1024 * 1024;
/** What a runner holds for a connection whatever its client asks: twice what a client sends. */
export const HELD_MAX_CODES = 2 * SENT_MAX_CODES;
export const HELD_MAX_CHARS = 2 * SENT_MAX_CHARS;

/** The client's side: an id for each code, and which codes the runner holds, oldest first. */
export class SentCodes {
  /** Ids by code, for the codes run lately (bounded as the runner's are). */
  readonly #ids = new Map<string, number>();
  /** Characters of each code the runner holds, by id, least recently run first. */
  readonly #held = new Map<number, number>();
  #heldChars = 0;
  #nextId = 1;

  /** The id a run of `code` names; null when the code is to travel in the run itself. */
  idOf(code: string | undefined): number | null {
    if (code === undefined || code.length > REF_MAX_CHARS) return null;
    let id = this.#ids.get(code);
    if (id !== undefined && this.#ids.size >= SENT_MAX_CODES) {
      // Near the bound, least recently run first here too; below it, order does not matter and is not kept.
      this.#ids.delete(code);
      this.#ids.set(code, id);
    } else if (id === undefined) {
      // Ids are never given again: a run queued with an id whose code was forgotten sends it again under that id.
      id = this.#nextId++;
      this.#ids.set(code, id);
      if (this.#ids.size > SENT_MAX_CODES) this.#ids.delete(this.#ids.keys().next().value!);
    }
    return id;
  }

  /** What to send before a run that names `id` (its code), so that the runner holds it: nothing when it does. */
  before(id: number, code: string): ClientMessage[] {
    const chars = this.#held.get(id);
    if (chars !== undefined) {
      // Least recently run first: a code run again moves to the back.
      this.#held.delete(id);
      this.#held.set(id, chars);
      return [];
    }
    const out: ClientMessage[] = [{ t: "code", codeId: id, code }];
    this.#held.set(id, code.length);
    this.#heldChars += code.length;
    for (const [oldest, oldChars] of this.#held) {
      if (oldest === id || (this.#held.size <= SENT_MAX_CODES && this.#heldChars <= SENT_MAX_CHARS)) break;
      this.#held.delete(oldest);
      this.#heldChars -= oldChars;
      out.push({ t: "forget", codeId: oldest });
    }
    return out;
  }
}

/** The runner's side: the codes a connection's client sent, by id, bounded whatever the client asks. */
export class HeldCodes {
  readonly #codes = new Map<number, string>();
  #chars = 0;

  hold(id: number, code: string): void {
    this.forget(id);
    this.#codes.set(id, code);
    this.#chars += code.length;
    for (const [oldest, old] of this.#codes) {
      if (oldest === id || (this.#codes.size <= HELD_MAX_CODES && this.#chars <= HELD_MAX_CHARS)) break;
      this.#codes.delete(oldest);
      this.#chars -= old.length;
    }
  }

  forget(id: number): void {
    const code = this.#codes.get(id);
    if (code === undefined) return;
    this.#codes.delete(id);
    this.#chars -= code.length;
  }

  code(id: number): string | undefined {
    return this.#codes.get(id);
  }
}
