import { AnswerError } from "../errors";

/**
 * The console event streams each user has open on this edge process: each holds an ordered consumer on the NATS server
 * every tenant shares, so a user may open only `perUser` at once (docs/api.md#following-events); past it the stream is
 * refused with 429 `EVENT_STREAMS_LIMIT`, and a place comes free when one of the user's streams closes.
 */
export class OpenStreams {
  readonly #open = new Map<string, number>();

  constructor(private readonly perUser: number) {}

  /** Takes one of `userId`'s places, or throws the refusal; the function returned gives it back (once). */
  take(userId: string): () => void {
    const open = this.#open.get(userId) ?? 0;
    if (open >= this.perUser) {
      throw new AnswerError(
        "EVENT_STREAMS_LIMIT",
        `you have ${open} event streams open on this server, as many as one user may (WF_CONSOLE_EVENT_STREAMS): close one (another tab or client) and open this one again`,
        { openStreams: open, limit: this.perUser },
      );
    }
    this.#open.set(userId, open + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = this.#open.get(userId)! - 1;
      if (left > 0) this.#open.set(userId, left);
      else this.#open.delete(userId);
    };
  }
}
