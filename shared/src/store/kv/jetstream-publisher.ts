import { JetStreamApiError, type JetStreamPublishOptions, type PubAck } from "@nats-io/jetstream";
import type { Msg, MsgHdrs, NatsConnection } from "@nats-io/nats-core";
import { ReplyInbox } from "./reply-inbox";

/** A message to publish, as `publish` takes it. */
export interface PublishMessage {
  subject: string;
  data: string | Uint8Array;
  opts?: PublishOptions;
}

interface Queued extends PublishMessage {
  reply: string;
}

/** The publish options this publisher honours, named as nats.js names them. */
export type PublishOptions = Pick<Partial<JetStreamPublishOptions>, "msgID"> & {
  expect?: { lastSubjectSequence?: number };
  /** A KV delete marker (`KV-Operation: DEL`), as nats.js's KV delete writes it. */
  kvDelete?: true;
};

/**
 * JetStream publishes for hot write paths, each resolved once the stream acknowledged it: the acks
 * arrive at one inbox (reply-inbox.ts), and a turn's publishes are handed to the connection together,
 * so that they share one socket write (docs/architecture.md#storage). Failures are nats.js's own error
 * types (JetStreamApiError with its `code`, TimeoutError, NoRespondersError), so callers tell them
 * apart as before.
 */
export class JetStreamPublisher {
  readonly #acks: ReplyInbox;
  #queue: Queued[] = [];
  #closed = false;

  constructor(private readonly nc: NatsConnection) {
    this.#acks = new ReplyInbox(nc);
  }

  publish(subject: string, data: string | Uint8Array, opts?: PublishOptions): Promise<PubAck> {
    if (this.#closed) return closedPublisher();
    const { reply, answer } = this.#acks.expect(subject, ackOf);
    this.#enqueue([{ reply, subject, data, opts }]);
    return answer;
  }

  /**
   * Publishes `messages`, resolved once the stream acknowledged them all; fails with the first failure. For callers
   * that only wait for all of them (an execution's events): one promise for the lot.
   */
  publishAll(messages: readonly PublishMessage[]): Promise<void> {
    if (this.#closed) return closedPublisher();
    const { replies, answer } = this.#acks.expectAll(
      messages.map((m) => m.subject),
      (msg, subject) => void ackOf(msg, subject),
    );
    this.#enqueue(messages.map((m, i) => ({ reply: replies[i]!, ...m })));
    return answer;
  }

  /** The first message queued in a turn schedules the hand-over of all of them. */
  #enqueue(messages: readonly Queued[]): void {
    if (this.#queue.length === 0 && messages.length > 0) setImmediate(() => this.#handOver());
    for (const m of messages) this.#queue.push(m);
  }

  #handOver(): void {
    const queue = this.#queue;
    this.#queue = [];
    for (const { reply, subject, data, opts } of queue) {
      // Failed meanwhile (the publisher was closed): nobody waits for it any more.
      if (!this.#acks.waiting(reply)) continue;
      try {
        this.nc.publish(subject, typeof data === "string" ? utf8(data) : data, { reply, ...headersOf(opts) });
      } catch (err) {
        this.#acks.fail(reply, err);
      }
    }
  }

  /** Stops listening for acks; publishes still waiting for theirs fail. */
  close(): void {
    this.#closed = true;
    this.#acks.close(new Error("the JetStream publisher was closed before the ack arrived"));
  }
}

function closedPublisher(): Promise<never> {
  return Promise.reject(new Error("the JetStream publisher is closed"));
}

function ackOf(msg: Msg, subject: string): PubAck {
  const ack = msg.json<Partial<PubAck> & { error?: ConstructorParameters<typeof JetStreamApiError>[0] }>();
  if (ack.error) throw new JetStreamApiError(ack.error);
  if (typeof ack.stream !== "string" || typeof ack.seq !== "number")
    throw new Error(`invalid JetStream ack for ${subject}`);
  return {
    stream: ack.stream,
    seq: ack.seq,
    duplicate: ack.duplicate ?? false,
    ...(ack.domain ? { domain: ack.domain } : {}),
  };
}

/**
 * `text` in UTF-8, as nats.js would encode a string payload, but without its TextEncoder: Node's `TextEncoder.encode`
 * gives each result a fresh ArrayBuffer, `Buffer.from` a slice of a shared pool for text under 4 KiB. For a 241-byte
 * event, 0.57 µs against 0.07 µs (Node 24), and a workflow publishes about ten such payloads.
 */
function utf8(text: string): Uint8Array {
  return Buffer.from(text, "utf8");
}

const UNSAFE_HEADER_VALUE = /[\r\n]/;

/**
 * The publish's headers, already in wire form. nats.js builds a header map per message (keys
 * canonicalised, values in arrays, a string rebuilt on encode): about a sixth of what a webhook
 * trigger allocated. Its protocol layer (nats-core 3) calls nothing but `encode()` on the
 * headers of a publish, which is all this object has; the publisher's tests (message id
 * dedup, expected sequence) fail if that changes.
 */
function headersOf(opts: PublishOptions | undefined): { headers?: MsgHdrs } {
  const last = opts?.expect?.lastSubjectSequence;
  if (opts?.msgID === undefined && last === undefined && opts?.kvDelete === undefined) return {};
  let text = "NATS/1.0";
  if (opts?.kvDelete) text += "\r\nKV-Operation: DEL";
  if (opts?.msgID !== undefined) {
    if (UNSAFE_HEADER_VALUE.test(opts.msgID))
      throw new TypeError(`a message id may not contain CR or LF: ${JSON.stringify(opts.msgID)}`);
    text += `\r\nNats-Msg-Id: ${opts.msgID}`;
  }
  if (last !== undefined) text += `\r\nNats-Expected-Last-Subject-Sequence: ${last}`;
  const wire = utf8(`${text}\r\n\r\n`);
  return { headers: { encode: () => wire } as unknown as MsgHdrs };
}
