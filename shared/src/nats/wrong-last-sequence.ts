import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";

/** A write bound to a key's last revision (or to its having none) lost: another write came first. */
export function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}
