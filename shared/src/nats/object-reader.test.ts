import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { ObjectStore } from "@nats-io/obj";
import { describe, expect, it, onTestFinished } from "vitest";
import { useNatsConnection } from "@wf/testing/nats-connection";
import { waitFor } from "@wf/testing";
import { newId } from "../execution/ids";
import { openObjectBucket } from "./buckets";
import { openStoredObject, type ByteRange } from "./object-reader";
import { ONE_REPLICA } from "./placement";

const nats = useNatsConnection();

/** Small chunks: the layouts below take many of them. */
const CHUNK = 1024;

/** `size` bytes, byte i being i % 251. */
function bytes(size: number): Uint8Array {
  return new Uint8Array(size).map((_, i) => i % 251);
}

interface Bucket {
  name: string;
  bucket: ObjectStore;
  /** The direct gets asked of the bucket's stream since the bucket was opened. */
  gets: () => number;
}

async function bucket(): Promise<Bucket> {
  const name = `obj${newId()}`;
  const store = await openObjectBucket(nats.nc, name, ONE_REPLICA);
  // The requests themselves, as any subscriber sees them: the stream answers them all the same.
  let gets = 0;
  const subs = [`$JS.API.DIRECT.GET.OBJ_${name}`, `$JS.API.DIRECT.GET.OBJ_${name}.>`].map((subject) =>
    nats.nc.subscribe(subject, {
      callback: () => {
        gets++;
      },
    }),
  );
  onTestFinished(() => {
    for (const sub of subs) sub.unsubscribe();
  });
  await nats.nc.flush();
  return { name, bucket: store, gets: () => gets };
}

async function open(b: Bucket, name: string) {
  const object = await openStoredObject(await jetstreamManager(nats.nc), b.name, b.bucket, name);
  if (!object) throw new Error(`no object ${name}`);
  return object;
}

async function readAll(stream: Readable): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * Writes objects chunk by chunk as the object store lays them out, their chunks in the order `order` gives (the
 * object's index in `contents` for each chunk), then their infos: a layout that two writers at once can leave.
 */
async function writeByHand(
  b: Bucket,
  contents: Record<string, Uint8Array>,
  order: number[],
  digestOf: (content: Uint8Array) => Uint8Array = (c) => createHash("sha256").update(c).digest(),
): Promise<void> {
  const js = jetstream(nats.nc);
  const objects = Object.entries(contents).map(([name, content]) => ({ name, content, nuid: newId(), sent: 0 }));
  for (const i of order) {
    const o = objects[i]!;
    await js.publish(`$O.${b.name}.C.${o.nuid}`, o.content.subarray(o.sent * CHUNK, (o.sent + 1) * CHUNK));
    o.sent++;
  }
  for (const o of objects) {
    const info = {
      name: o.name,
      bucket: b.name,
      nuid: o.nuid,
      size: o.content.length,
      chunks: o.sent,
      digest: `SHA-256=${Buffer.from(digestOf(o.content)).toString("base64url")}=`,
      mtime: new Date().toISOString(),
      deleted: false,
      options: { max_chunk_size: CHUNK },
    };
    const encoded = Buffer.from(o.name).toString("base64").replaceAll("+", "-").replaceAll("/", "_");
    await js.publish(`$O.${b.name}.M.${encoded}`, JSON.stringify(info));
  }
}

/** Ranges of a 20-chunk object: in one chunk, across chunks, the first and last chunks, and their bytes. */
const RANGES: ByteRange[] = [
  { start: 0, end: 9 },
  { start: 5 * CHUNK + 3, end: 5 * CHUNK + 3 },
  { start: 7 * CHUNK - 10, end: 9 * CHUNK + 10 },
  { start: 19 * CHUNK, end: 20 * CHUNK - 1 },
  { start: 19 * CHUNK + 500, end: 20 * CHUNK - 1 },
  { start: 1, end: 20 * CHUNK - 2 },
];

describe("openStoredObject", () => {
  it("reads what nats.js wrote, whole and by ranges, and knows no missing object", async () => {
    const b = await bucket();
    const content = bytes(20 * CHUNK);
    await b.bucket.putBlob({ name: "exec/a", options: { max_chunk_size: CHUNK } }, content);
    await b.bucket.putBlob({ name: "empty" }, new Uint8Array(0));
    const object = await open(b, "exec/a");
    expect(object.size).toBe(content.length);
    expect(await readAll(object.read())).toEqual(content);
    for (const r of RANGES)
      expect(await readAll(object.read(r)), JSON.stringify(r)).toEqual(content.slice(r.start, r.end + 1));
    expect(await readAll((await open(b, "empty")).read())).toEqual(new Uint8Array(0));
    expect(await openStoredObject(await jetstreamManager(nats.nc), b.name, b.bucket, "none")).toBeNull();
    await b.bucket.delete("exec/a");
    expect(await openStoredObject(await jetstreamManager(nats.nc), b.name, b.bucket, "exec/a")).toBeNull();
  });

  it("fetches the chunks a range covers and two more, where the object's chunks lie together", async () => {
    const b = await bucket();
    const content = bytes(20 * CHUNK);
    await b.bucket.putBlob({ name: "a", options: { max_chunk_size: CHUNK } }, content);
    const object = await open(b, "a");
    const before = b.gets();
    expect(await readAll(object.read({ start: 12 * CHUNK + 1, end: 13 * CHUNK + 1 }))).toEqual(
      content.slice(12 * CHUNK + 1, 13 * CHUNK + 2),
    );
    // The first and the last, to see that they lie together; then chunks 12 and 13.
    expect(b.gets() - before).toBe(4);
  });

  it("reads objects whose chunks another object's interleave, whole and by ranges", async () => {
    const b = await bucket();
    const [one, two] = [bytes(20 * CHUNK - 300), bytes(7 * CHUNK).reverse()];
    // The second object's chunks among the first's.
    const order = [0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, ...Array<number>(13).fill(0)];
    await writeByHand(b, { one, two }, order);
    // nats.js reads the layout as written.
    expect(await b.bucket.getBlob("two")).toEqual(two);
    const [a, c] = [await open(b, "one"), await open(b, "two")];
    expect(await readAll(a.read())).toEqual(one);
    expect(await readAll(c.read())).toEqual(two);
    for (const r of RANGES) {
      const end = Math.min(r.end, one.length - 1);
      const range = { start: Math.min(r.start, end), end };
      expect(await readAll(a.read(range)), JSON.stringify(range)).toEqual(one.slice(range.start, range.end + 1));
    }
  });

  it("fetches no chunk ahead of one its reader has not taken", async () => {
    const b = await bucket();
    await b.bucket.putBlob({ name: "a", options: { max_chunk_size: CHUNK } }, bytes(50 * CHUNK));
    const object = await open(b, "a");
    const before = b.gets();
    const stream = object.read();
    stream.pause();
    // Started, and stopped for the reader: one chunk taken into the stream's buffer, none more asked for.
    stream.read(0);
    await waitFor(() => stream.readableLength > 0, { what: "the first chunk" });
    await nats.nc.flush();
    expect(stream.readableLength).toBe(CHUNK);
    expect(b.gets() - before).toBe(1);
    expect(await readAll(stream)).toEqual(bytes(50 * CHUNK));
    expect(b.gets() - before).toBe(50);
  });

  it("ends the stream with an error before the last chunk where the bytes do not match the digest", async () => {
    const b = await bucket();
    const content = bytes(3 * CHUNK + 10);
    await writeByHand(b, { bad: content }, [0, 0, 0, 0], () => createHash("sha256").update("other").digest());
    await expect(b.bucket.getBlob("bad")).rejects.toThrow(/digests do not match/);
    const got: Buffer[] = [];
    const stream = (await open(b, "bad")).read();
    await expect(
      (async () => {
        for await (const part of stream) got.push(part as Buffer);
      })(),
    ).rejects.toThrow(/object bad is corrupt: its digest is SHA-256=/);
    expect(Buffer.concat(got)).toEqual(Buffer.from(content.subarray(0, 3 * CHUNK)));
    // A range cannot be checked against the whole's digest: it is served from the chunks it covers.
    expect(await readAll((await open(b, "bad")).read({ start: 10, end: 20 }))).toEqual(content.slice(10, 21));
  });

  it("ends the stream with an error when the object goes while it is read", async () => {
    const b = await bucket();
    await b.bucket.putBlob({ name: "a", options: { max_chunk_size: CHUNK } }, bytes(10 * CHUNK));
    const stream = (await open(b, "a")).read();
    stream.pause();
    stream.read(0);
    await waitFor(() => stream.readableLength > 0, { what: "the first chunk" });
    await b.bucket.delete("a");
    await expect(readAll(stream)).rejects.toThrow(/object a is gone, or some of it, while it was read/);
  });
});
