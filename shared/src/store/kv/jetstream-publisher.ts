import { JetStreamApiError, type JetStreamPublishOptions, type PubAck } from "@nats-io/jetstream";
import type { Msg, NatsConnection } from "@nats-io/nats-core";
import { ReplyInbox } from "./reply-inbox";
import { WirePublish } from "./wire-publish";

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
  readonly #wire: WirePublish;
  #queue: Queued[] = [];
  #closed = false;

  constructor(nc: NatsConnection) {
    this.#wire = new WirePublish(nc);
    this.#acks = new ReplyInbox(nc);
  }

  /** The largest message the server takes (its max_payload), headers included; undefined before it said. */
  get maxPayload(): number | undefined {
    return this.#wire.maxPayload;
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
      checkAck,
    );
    this.#enqueue(messages.map((m, i) => ({ reply: replies[i]!, subject: m.subject, data: m.data, opts: m.opts })));
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
        this.#wire.send(subject, reply, headerText(opts), data);
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

/** The ack's JSON when the stream took the message: the server writes an `error` ahead of its other fields. */
const STORED = Buffer.from('{"stream":');

/** ackOf for a caller that needs no more than the message stored: a stored message's ack is not parsed. */
function checkAck(msg: Msg, subject: string): void {
  const data = msg.data;
  let stored = data.length > STORED.length;
  for (let i = 0; stored && i < STORED.length; i++) stored = data[i] === STORED[i];
  if (!stored) ackOf(msg, subject);
}

const UNSAFE_HEADER_VALUE = /[\r\n]/;

/** The publish's headers in wire form, or "" for none. */
function headerText(opts: PublishOptions | undefined): string {
  const last = opts?.expect?.lastSubjectSequence;
  if (opts?.msgID === undefined && last === undefined && opts?.kvDelete === undefined) return "";
  let text = "NATS/1.0";
  if (opts?.kvDelete) text += "\r\nKV-Operation: DEL";
  if (opts?.msgID !== undefined) {
    if (UNSAFE_HEADER_VALUE.test(opts.msgID))
      throw new TypeError(`a message id may not contain CR or LF: ${JSON.stringify(opts.msgID)}`);
    text += `\r\nNats-Msg-Id: ${opts.msgID}`;
  }
  if (last !== undefined) text += `\r\nNats-Expected-Last-Subject-Sequence: ${last}`;
  return `${text}\r\n\r\n`;
}
