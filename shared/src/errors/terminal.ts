/**
 * An error that trying again cannot fix: a command that meets one is given up at once (its
 * execution, if it names one, ends FAILED with the message), instead of being redelivered until
 * the delivery limit. Any other error is taken as passing (a store or NATS that did not answer).
 */
export class TerminalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TerminalError";
  }
}

/** A stored record that no longer parses (written by another version, or edited by hand). */
export class CorruptRecordError extends TerminalError {
  constructor(
    readonly collection: string,
    readonly key: string,
    problem: string,
  ) {
    super(`the stored record ${collection}/${key} cannot be read: ${problem}`);
    this.name = "CorruptRecordError";
  }
}
