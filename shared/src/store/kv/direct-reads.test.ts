import { Kvm, type KV } from "@nats-io/kv";
import { ClosedConnectionError, TimeoutError, type NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { newId } from "../../execution/ids";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";
import { decodeFound, DirectReads, foundAnswer } from "./direct-reads";
import { ReplyInbox } from "./reply-inbox";

let server: NatsServerHandle;
let nc: NatsConnection;
let reads: DirectReads;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  reads = new DirectReads(nc);
});

afterAll(async () => {
  reads?.close();
  await nc?.close();
  await server?.stop();
});

async function bucket(): Promise<{ name: string; kv: KV }> {
  const name = `d${newId()}`;
  return { name, kv: await new Kvm(nc).create(name, { history: 1 }) };
}

/** What the store reads of an entry, from nats.js's `kv.get` or from DirectReads. */
const seen = (e: { operation: string; revision: number; length: number; json(): unknown } | null) =>
  e === null
    ? null
    : {
        operation: e.operation,
        revision: e.revision,
        length: e.length,
        value: e.operation === "PUT" ? e.json() : null,
      };

describe("DirectReads", () => {
  it("reads each key as nats.js's kv.get does: a value, a deleted and a purged key, and one never written", async () => {
    const { name, kv } = await bucket();
    await kv.put("a", JSON.stringify({ n: 1 }));
    await kv.put("a", JSON.stringify({ n: 2, text: "é".repeat(100) }));
    await kv.put("gone", "{}");
    await kv.delete("gone");
    await kv.put("purged", "{}");
    await kv.purge("purged");
    for (const key of ["a", "gone", "purged", "never"])
      expect(seen(await reads.last(name, key)), key).toEqual(seen(await kv.get(key)));
    expect(seen(await reads.last(name, "a"))).toMatchObject({ operation: "PUT", revision: 2, value: { n: 2 } });
    expect(await reads.last(name, "never")).toBeNull();
  });

  it("decodes an answer made up for a key as it decodes the server's answer for that key (the decoy of reads whose misses must cost what a find does)", async () => {
    const { name, kv } = await bucket();
    const json = JSON.stringify({ n: 1, text: "é".repeat(10) });
    await kv.put("a", json);
    expect(seen(decodeFound(foundAnswer(name, "a", json)))).toEqual(seen(await reads.last(name, "a")));
  });

  it("answers the reads of one turn each with its own key's value", async () => {
    const { name, kv } = await bucket();
    for (let i = 0; i < 50; i++) await kv.put(`k${i}`, JSON.stringify({ i }));
    const values = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => (await reads.last(name, `k${i}`))!.json()),
    );
    expect(values).toEqual(Array.from({ length: 50 }, (_, i) => ({ i })));
  });
});

describe("ReplyInbox", () => {
  it("fails a request nobody answers with TimeoutError, and what waits with ClosedConnectionError when the connection closes", async () => {
    const own = await connect({ servers: server.url });
    onTestFinished(() => own.close());
    const inbox = new ReplyInbox(own, 300);
    const silent = `silent.${newId()}`;
    own.subscribe(silent, { callback: () => undefined });
    const unanswered = inbox.expect(silent, () => "answered");
    own.publish(silent, "", { reply: unanswered.reply });
    await expect(unanswered.answer).rejects.toBeInstanceOf(TimeoutError);

    const waiting = new ReplyInbox(own, 60_000).expect(silent, () => "answered");
    own.publish(silent, "", { reply: waiting.reply });
    await own.close();
    await expect(waiting.answer).rejects.toBeInstanceOf(ClosedConnectionError);
  });
});
