import { MsgHdrsImpl, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/nats-core";
import { ReplyInbox } from "./reply-inbox";

const EMPTY = new Uint8Array(0);
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A KV key's last message, as nats.js's `KvEntry` gives it, with what the store reads of it. */
export interface StoredEntry {
  operation: "PUT" | "DEL" | "PURGE";
  revision: number;
  /** The stored value's size in bytes. */
  length: number;
  json(): unknown;
}

/**
 * Reads of a KV key's last value by JetStream's direct get, the request nats.js's `kv.get` makes
 * (`$JS.API.DIRECT.GET.<stream>.<subject>`, answered by any replica of a bucket that allows
 * direct gets), with every answer arriving at one inbox (reply-inbox.ts): a read of a record by
 * id is one publish and one map lookup rather than a nats.js request. For buckets that allow
 * direct gets only; nats.js makes every bucket so on servers from 2.9.
 */
export class DirectReads {
  readonly #replies: ReplyInbox;

  constructor(private readonly nc: NatsConnection) {
    this.#replies = new ReplyInbox(nc);
  }

  /** The last message of `key` in `bucket`, or null when there never was one (or it was purged away). */
  last(bucket: string, key: string): Promise<StoredEntry | null> {
    const { reply, answer } = this.#replies.expect(`$KV.${bucket}.${key}`, entryOf);
    try {
      this.nc.publish(`$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.${key}`, EMPTY, { reply });
    } catch (err) {
      this.#replies.fail(reply, err);
    }
    return answer;
  }

  close(): void {
    this.#replies.close(new Error("the store was closed before its read was answered"));
  }
}

/**
 * What a KV message's headers say it is; a marker the server leaves when a key's TTL ends (2.11+) reads as a purge, as
 * in nats.js.
 */
export function operationOf(headers: MsgHdrs): StoredEntry["operation"] {
  return headers.get("Nats-Marker-Reason") === "MaxAge"
    ? "PURGE"
    : ((headers.get("KV-Operation") || "PUT") as StoredEntry["operation"]);
}

/**
 * A direct get's answer for a key that holds a record, as the server sends it, to be decoded with nothing asked of the
 * server.
 */
export interface FoundAnswer {
  /** The KV key (a record's key token). */
  key: string;
  subject: string;
  headers: Uint8Array;
  data: Uint8Array;
}

/**
 * The answer a direct get of `key` in `bucket` gets when the key holds `json`: the server's status line and headers,
 * then the value.
 */
export function foundAnswer(bucket: string, key: string, json: string): FoundAnswer {
  const subject = `$KV.${bucket}.${key}`;
  const head = `NATS/1.0\r\nNats-Stream: KV_${bucket}\r\nNats-Subject: ${subject}\r\nNats-Sequence: 1\r\nNats-Time-Stamp: ${new Date().toISOString().replace("Z", "000000Z")}\r\n\r\n`;
  return { key, subject, headers: encoder.encode(head), data: encoder.encode(json) };
}

/**
 * Decodes `answer` as an answer from the server is decoded, its headers anew on every call as nats.js decodes each
 * message's.
 */
export function decodeFound(answer: FoundAnswer): StoredEntry {
  const entry = entryOf({ headers: MsgHdrsImpl.decode(answer.headers), data: answer.data }, answer.subject);
  if (entry === null) throw new Error(`${answer.subject}: the found answer reads as a missing key`);
  return entry;
}

function entryOf(msg: Pick<Msg, "headers" | "data">, subject: string): StoredEntry | null {
  const headers = msg.headers;
  if (headers === undefined) throw new Error(`direct get of ${subject}: an answer without headers`);
  if (headers.code === 404) return null;
  if (headers.code !== 0) throw new Error(`direct get of ${subject}: ${headers.code} ${headers.description}`);
  const size = headers.get("Nats-Msg-Size");
  const data = msg.data;
  return {
    operation: operationOf(headers),
    revision: Number(headers.get("Nats-Sequence")),
    length: size === "" ? data.length : Number(size),
    json: () => JSON.parse(decoder.decode(data)) as unknown,
  };
}
