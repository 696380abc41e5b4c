/**
 * How much of its steps' results an execution keeps. Its record (a JetStream KV value, or a
 * MongoDB document whose events still go through NATS) and its events are NATS messages, and
 * the server refuses one over its max_payload (1 MB by default): every limit is a share of it,
 * so a server configured for more keeps more.
 */
export interface ResultLimits {
  /** The NATS server's max_payload: what one execution's record may hold in all. */
  recordBytes: number;
  /** A step's output (and so the execution's output, which is one of them), as JSON. */
  outputBytes: number;
  /** A step's resolved input, kept with enableMonitoring. */
  inputBytes: number;
  /** A step's log lines, kept with enableMonitoring. */
  logBytes: number;
  /** A step's (and the execution's) error text. */
  errorBytes: number;
  /** An agent step's recorded tool calls. */
  toolCallBytes: number;
  /** One value of an event; a larger one is replaced by `{truncated: true, bytes}`. */
  eventValueBytes: number;
  /** Events awaiting the record's next write: past this the run writes at its next step boundary. */
  outboxBytes: number;
}

/** Used when the connection does not say (it always does once connected). */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

export function resultLimits(maxPayload: number): ResultLimits {
  return {
    recordBytes: maxPayload,
    outputBytes: Math.floor(maxPayload / 4),
    inputBytes: Math.floor(maxPayload / 32),
    logBytes: Math.floor(maxPayload / 16),
    errorBytes: Math.min(8 * 1024, Math.floor(maxPayload / 64)),
    toolCallBytes: Math.floor(maxPayload / 16),
    eventValueBytes: Math.min(64 * 1024, Math.floor(maxPayload / 16)),
    outboxBytes: Math.floor(maxPayload / 16),
  };
}

/**
 * The most an execution's variables, definition and step states may take of its record together: max_payload less
 * what its own output and error and its pending events need, and a margin for the rest of the record.
 */
export function recordRoom(l: ResultLimits): number {
  return l.recordBytes - l.outputBytes - l.errorBytes - 2 * l.outboxBytes - Math.floor(l.recordBytes / 64);
}
