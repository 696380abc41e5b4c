import { AnswerError } from "../errors";
import { Places } from "../places";

/**
 * The console event streams each user has open on this edge process: each holds an ordered consumer on the NATS server
 * every tenant shares, so a user may open only `perUser` at once (docs/api.md#following-events); past it the stream is
 * refused with 429 `EVENT_STREAMS_LIMIT`, and a place comes free when one of the user's streams closes.
 */
export function openStreams(perUser: number): Places {
  return new Places(
    perUser,
    (open, limit) =>
      new AnswerError(
        "EVENT_STREAMS_LIMIT",
        `you have ${open} event streams open on this server, as many as one user may (WF_CONSOLE_EVENT_STREAMS): close one (another tab or client) and open this one again`,
        { openStreams: open, limit },
      ),
  );
}
