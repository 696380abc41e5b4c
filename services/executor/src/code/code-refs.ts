import { OwnerLru } from "@wf/shared/pools";
import type { ClientMessage } from "./protocol";

/**
 * A step's code travels to its runner once per connection, not in every run: the runner holds it under an id, and a
 * run names the id. A 10 KB code in every run line cost the executor its serialisation and the runner its parse and
 * hash at each run: 3-step workflows of three such steps ran at 0.40-0.42 of the rate of light ones, 0.60-0.66 once
 * their code went once (2026-12-05, BENCH_PARTS=code-size).
 *
 * The client decides what the runner holds: it sends a code before the first run that names it and tells the runner
 * to forget one past its bounds (the least recently run of the owner holding the most: OwnerLru), so the runner never
 * drops one a queued run still names, and an owner running many codes pushes out its own. A code longer than
 * REF_MAX_CHARS travels in its runs, as before.
 */
export const REF_MAX_CHARS = 256 * 1024;
/** What a client has a runner hold at once, per connection: codes, and their characters. */
export const SENT_MAX_CODES = 256;
export const SENT_MAX_CHARS = 4 * 1024 * 1024;
/** What a runner holds for a connection whatever its client asks: twice what a client sends. */
export const HELD_MAX_CODES = 2 * SENT_MAX_CODES;
export const HELD_MAX_CHARS = 2 * SENT_MAX_CHARS;

/** The client's side: an id for each code, and which codes the runner holds, by owner. */
export class SentCodes {
  /** Ids by code: the codes the runner holds, and those of runs still on their way to it. */
  readonly #ids = new Map<string, number>();
  /** The codes the runner holds, by id; an entry's size is its code's characters. */
  readonly #held = new OwnerLru<number, string>(SENT_MAX_CODES, SENT_MAX_CHARS);
  #nextId = 1;

  /** The id a run of `code` names; null when the code is to travel in the run itself. */
  idOf(code: string | undefined): number | null {
    if (code === undefined || code.length > REF_MAX_CHARS) return null;
    let id = this.#ids.get(code);
    if (id === undefined) {
      // Ids are never given again: a run queued with an id whose code was forgotten sends it again under that id.
      id = this.#nextId++;
      this.#ids.set(code, id);
      if (this.#ids.size > 2 * SENT_MAX_CODES) this.#dropUnheld();
    }
    return id;
  }

  /**
   * What to send before `owner`'s run that names `id` (its code), so that the runner holds it: nothing when it does.
   * A code two owners run counts against the first to send it.
   */
  before(id: number, code: string, owner: string): ClientMessage[] {
    if (this.#held.get(id) !== undefined) return [];
    this.#ids.set(code, id);
    const out: ClientMessage[] = [{ t: "code", codeId: id, code }];
    for (const [forgotten, text] of this.#held.set(id, owner, code, code.length)) {
      if (this.#ids.get(text) === forgotten) this.#ids.delete(text);
      out.push({ t: "forget", codeId: forgotten });
    }
    return out;
  }

  /** Forgets the ids of runs that never went (aborted before they were sent): they take no room for long. */
  #dropUnheld(): void {
    for (const [code, id] of this.#ids) if (!this.#held.has(id)) this.#ids.delete(code);
  }
}

/**
 * The runner's side: the codes a connection's client sent, by id, bounded whatever the client asks (the oldest run
 * out first: the client's own bounds keep it well inside these, and it does not say whose a code is).
 */
export class HeldCodes {
  readonly #codes = new OwnerLru<number, string>(HELD_MAX_CODES, HELD_MAX_CHARS);

  hold(id: number, code: string): void {
    this.#codes.set(id, "", code, code.length);
  }

  forget(id: number): void {
    this.#codes.delete(id);
  }

  code(id: number): string | undefined {
    return this.#codes.get(id);
  }
}
