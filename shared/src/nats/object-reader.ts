import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { DirectMsgRequest, JetStreamManager, StoredMsg } from "@nats-io/jetstream";
import type { ObjectInfo, ObjectStore } from "@nats-io/obj";
import { retryTransient } from "./transient";

/** Bytes `start` to `end` of a file, both included. */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object of an object store bucket, found: nothing of it is read until `read` is. */
export interface StoredObject {
  size: number;
  /**
   * The object's bytes, or those of `range`, each chunk fetched when the stream has room for it: a reader that stops
   * reading stops the fetches, so the stream holds a chunk or two whatever the object's size. The whole object's
   * digest is checked before its last chunk is given: a corrupt object ends the stream with an error instead.
   */
  read(range?: ByteRange): Readable;
}

/** How nats.js writes an object's digest in its info: the SHA-256 of its bytes, base64 (or hex, by older writers). */
const DIGEST_PREFIX = "SHA-256=";

/**
 * Opens object `name` of `bucket`, or null when there is none. The layout is the object store's: the object's info is
 * the last message on `$O.<bucket>.M.<name in base64url>`, its bytes the messages on `$O.<bucket>.C.<info's nuid>` in
 * stream order, each of `max_chunk_size` bytes but the last. nats.js's own reader takes them through a push consumer
 * that queues every chunk as it arrives, whether or not anyone reads; these are fetched one at a time by direct gets
 * (`next_by_subj` from the chunk before), which the bucket allows and any replica answers.
 */
export async function openStoredObject(
  jsm: JetStreamManager,
  bucketName: string,
  bucket: ObjectStore,
  name: string,
): Promise<StoredObject | null> {
  const info = await bucket.info(name);
  if (!info || info.deleted) return null;
  if (info.options?.link) throw new Error(`object ${name} of bucket ${bucketName} is a link, which is not read here`);
  const chunks = new Chunks(jsm, `OBJ_${bucketName}`, `$O.${bucketName}.C.${info.nuid}`, name);
  return {
    size: info.size,
    read: (range) =>
      Readable.from(range ? rangeOf(chunks, info, range) : whole(chunks, info), {
        objectMode: false,
        // Below one chunk: a chunk pushed fills the buffer, and the next is fetched once it is read.
        highWaterMark: 1,
      }),
  };
}

/** Every chunk in order; the last given only once the digest of all of them matched the info's. */
async function* whole(chunks: Chunks, info: ObjectInfo): AsyncGenerator<Uint8Array> {
  const sha = createHash("sha256");
  let seq = 0;
  let read = 0;
  for (let i = 0; i < info.chunks; i++) {
    const chunk = await chunks.next(seq);
    seq = chunk.seq + 1;
    read += chunk.data.length;
    sha.update(chunk.data);
    if (i === info.chunks - 1) checkWhole(chunks.name, info, read, sha.digest());
    yield chunk.data;
  }
}

/**
 * The chunks `range` covers, cut to it. Where the object's chunks lie one after another in the stream (no other
 * object's written between them), chunk k is at the first one's sequence + k: the first and last are fetched to see
 * that, then the range's own. Otherwise the chunks before the range are fetched and dropped, one at a time. A range
 * cannot be checked against the digest of the whole; each chunk's length is checked against the layout instead.
 */
async function* rangeOf(chunks: Chunks, info: ObjectInfo, range: ByteRange): AsyncGenerator<Uint8Array> {
  const size = chunkSize(chunks.name, info);
  const [first, last] = [Math.floor(range.start / size), Math.floor(range.end / size)];
  let chunk = await chunks.next(0);
  let index = 0;
  if (first > 1) {
    const end = await chunks.last();
    if (end.seq - chunk.seq === info.chunks - 1) {
      index = first;
      chunk = first === info.chunks - 1 ? end : await chunks.at(chunk.seq + first);
    }
  }
  for (;;) {
    const expected = index === info.chunks - 1 ? info.size - index * size : size;
    if (chunk.data.length !== expected) {
      throw new Error(`object ${chunks.name}: chunk ${index} has ${chunk.data.length} bytes, not ${expected}`);
    }
    if (index >= first) {
      const offset = index * size;
      yield chunk.data.subarray(Math.max(0, range.start - offset), Math.min(size, range.end + 1 - offset));
    }
    if (index === last) return;
    chunk = await chunks.next(chunk.seq + 1);
    index++;
  }
}

/** The chunk size the object was written with, checked against its size and count of chunks. */
function chunkSize(name: string, info: ObjectInfo): number {
  const size = info.options?.max_chunk_size ?? 0;
  if (size <= 0 || info.size > info.chunks * size || info.size <= (info.chunks - 1) * size) {
    throw new Error(`object ${name}: ${info.size} bytes in ${info.chunks} chunks of ${size} do not add up`);
  }
  return size;
}

function checkWhole(name: string, info: ObjectInfo, read: number, digest: Buffer): void {
  if (read !== info.size) throw new Error(`object ${name}: read ${read} bytes, its info says ${info.size}`);
  if (!info.digest.startsWith(DIGEST_PREFIX)) throw new Error(`object ${name}: unknown digest ${info.digest}`);
  const written = info.digest.slice(DIGEST_PREFIX.length);
  const expected = Buffer.from(written, written.length === 64 ? "hex" : "base64");
  if (!expected.equals(digest)) {
    throw new Error(
      `object ${name} is corrupt: its digest is ${info.digest}, its bytes' SHA-256=${digest.toString("hex")}`,
    );
  }
}

/** The chunks of one object, fetched by direct gets; one gone (the object removed meanwhile) is an error. */
class Chunks {
  constructor(
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly subject: string,
    readonly name: string,
  ) {}

  /** The first chunk at or after stream sequence `seq`. */
  next(seq: number): Promise<StoredMsg> {
    return this.get({ seq, next_by_subj: this.subject });
  }

  /** The chunk at stream sequence `seq`. */
  at(seq: number): Promise<StoredMsg> {
    return this.get({ seq });
  }

  last(): Promise<StoredMsg> {
    return this.get({ last_by_subj: this.subject });
  }

  private async get(query: DirectMsgRequest): Promise<StoredMsg> {
    const m = await retryTransient(() => this.jsm.direct.getMessage(this.stream, query));
    if (!m || m.subject !== this.subject)
      throw new Error(`object ${this.name} is gone, or some of it, while it was read`);
    return m;
  }
}
