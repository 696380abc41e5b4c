import { z } from "zod";

/** An event's id in the console's event stream: its sequence number in the EVT stream. */
export const EventSequence = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, "must be an event id (a positive integer) received from this stream")
  .transform(Number);

export const EventStreamQuery = z.strictObject({
  lastEventId: EventSequence.optional().describe(
    "Resume after this event: only later events are sent. The Last-Event-ID header (what EventSource sends when it reconnects) stands for it and wins.",
  ),
});
