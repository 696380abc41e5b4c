import { jetstreamManager } from "@nats-io/jetstream";
import {
  ClosedConnectionError,
  InvalidArgumentError,
  InvalidSubjectError,
  NoRespondersError,
  type NatsConnection,
} from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../execution/ids";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";
import { JetStreamPublisher } from "./jetstream-publisher";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";

let server: NatsServerHandle;
let nc: NatsConnection;
let publisher: JetStreamPublisher;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  publisher = new JetStreamPublisher(nc);
});

afterAll(async () => {
  publisher?.close();
  await nc?.close();
  await server?.stop();
});

async function stream(): Promise<string> {
  const name = `P${newId().replace(/-/g, "").slice(-12)}`;
  await (await jetstreamManager(nc)).streams.add({ name, subjects: [`${name}.>`] });
  return name;
}

describe("JetStreamPublisher", () => {
  it("resolves with the stream's ack, and many publishes of one turn each get their own", async () => {
    const name = await stream();
    const acks = await Promise.all(
      Array.from({ length: 50 }, (_, i) => publisher.publish(`${name}.k${i}`, `{"n":${i}}`)),
    );
    expect(acks.map((a) => a.stream)).toEqual(Array(50).fill(name));
    expect(acks.map((a) => a.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it("stores a text payload as its UTF-8 bytes, as nats.js encodes one, and bytes as they are", async () => {
    const name = await stream();
    const text = `{"note":"naïve café ✓ 😀","lone":"\ud800"}`;
    const bytes = Uint8Array.from([0, 255, 10, 13]);
    const [a, b] = await Promise.all([publisher.publish(`${name}.t`, text), publisher.publish(`${name}.b`, bytes)]);
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.getMessage(name, { seq: a.seq }))!.data).toEqual(new TextEncoder().encode(text));
    expect((await jsm.streams.getMessage(name, { seq: b.seq }))!.data).toEqual(bytes);
  });

  it("honours the message id (a repeat is a duplicate) and the expected last subject sequence", async () => {
    const name = await stream();
    const first = await publisher.publish(`${name}.a`, "1", { msgID: "m1" });
    expect(await publisher.publish(`${name}.a`, "1", { msgID: "m1" })).toEqual({
      stream: name,
      seq: first.seq,
      duplicate: true,
    });
    const second = await publisher.publish(`${name}.a`, "2", { expect: { lastSubjectSequence: first.seq } });
    const lost = await publisher
      .publish(`${name}.a`, "3", { expect: { lastSubjectSequence: first.seq } })
      .catch((err: unknown) => err);
    expect(isWrongLastSequence(lost)).toBe(true);
    expect((await publisher.publish(`${name}.b`, "1", { expect: { lastSubjectSequence: 0 } })).seq).toBe(
      second.seq + 1,
    );
  });

  it("publishAll resolves once the stream took every message, with their ids honoured", async () => {
    const name = await stream();
    const all = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ subject: `${name}.e${i}`, data: `{"n":${i}}`, opts: { msgID: `e${i}` } }));
    await publisher.publishAll(all(20));
    // Again: every id is a duplicate, nothing more is stored.
    await publisher.publishAll(all(20));
    await publisher.publishAll([]);
    const { state } = await (await jetstreamManager(nc)).streams.info(name);
    expect(state.messages).toBe(20);
    const last = await (await jetstreamManager(nc)).streams.getMessage(name, { last_by_subj: `${name}.e19` });
    expect(last?.string()).toBe('{"n":19}');
  });

  it("publishAll fails with the first message the stream refuses", async () => {
    const name = await stream();
    const first = await publisher.publish(`${name}.a`, "1");
    const failed = await publisher
      .publishAll([
        { subject: `${name}.b`, data: "1" },
        { subject: `${name}.a`, data: "2", opts: { expect: { lastSubjectSequence: first.seq + 5 } } },
        { subject: `${name}.c`, data: "1" },
      ])
      .catch((err: unknown) => err);
    expect(isWrongLastSequence(failed)).toBe(true);
    await expect(publisher.publishAll([{ subject: `nostream.${newId()}`, data: "x" }])).rejects.toBeInstanceOf(
      NoRespondersError,
    );
  });

  it("fails with NoRespondersError where no stream takes the subject", async () => {
    await expect(publisher.publish(`nostream.${newId()}`, "x")).rejects.toBeInstanceOf(NoRespondersError);
  });

  it("refuses what nats.js's publish refuses, and the turn's other messages are still published", async () => {
    const name = await stream();
    const max = nc.info!.max_payload;
    const [spaced, huge, fine] = await Promise.allSettled([
      publisher.publish(`${name}.a b`, "1"),
      publisher.publish(`${name}.huge`, "x".repeat(max + 1)),
      publisher.publish(`${name}.fine`, "1", { msgID: "naïve ✓" }),
    ]);
    expect(spaced.status === "rejected" && spaced.reason).toBeInstanceOf(InvalidSubjectError);
    expect(huge.status === "rejected" && huge.reason).toBeInstanceOf(InvalidArgumentError);
    expect(fine.status).toBe("fulfilled");
    // The id's UTF-8 bytes were counted in the header's length: the server read it whole, so a repeat is a duplicate.
    expect((await publisher.publish(`${name}.fine`, "1", { msgID: "naïve ✓" })).duplicate).toBe(true);
    const { state } = await (await jetstreamManager(nc)).streams.info(name);
    expect(state.messages).toBe(1);
  });

  it("fails with ClosedConnectionError once its connection is closed", async () => {
    const own = await connect({ servers: server.url });
    const mine = new JetStreamPublisher(own);
    const name = await stream();
    await own.close();
    await expect(mine.publish(`${name}.a`, "1")).rejects.toBeInstanceOf(ClosedConnectionError);
    mine.close();
  });
});
