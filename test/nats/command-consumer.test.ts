import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { headers, TimeoutError } from "@nats-io/nats-core";
import {
  AckPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  type JetStreamClient,
  type JetStreamManager,
} from "@nats-io/jetstream";
import { newId } from "@wf/shared/execution";
import { createLogger } from "@wf/shared/log";
import {
  command,
  commandSeq,
  connectNats,
  consumeCommands,
  ensureConsumer,
  ORPHAN_GRACE_MS,
  OrphanRescue,
  type CommandConsumer,
  type ConcurrencyBound,
  type Handled,
} from "@wf/shared/nats";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/testing";
import type { NatsConnection } from "@nats-io/nats-core";

/**
 * The command consumer every service shares: what counts toward giving a message up, that a
 * message is never dropped while the execution it names could not be ended, and the rescue of
 * messages its server forgot.
 */
let server: NatsServerHandle;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats(server.url, "command-consumer-test");
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

const Body = z.object({ id: z.string() });

/** A fresh stream and consumer, and a consumer of it whose one command runs `handle`. */
async function consumerOf(
  handle: (deliveries: number) => Promise<Handled>,
  giveUp: (executionId: string, reason: string) => Promise<void>,
  {
    maxDeliver = 3,
    concurrency = 4,
    ackWaitMs = 5_000,
  }: { maxDeliver?: number; concurrency?: number | ConcurrencyBound; ackWaitMs?: number } = {},
): Promise<{ send: () => Promise<void>; consumer: CommandConsumer; stream: string }> {
  const ns = `cc${newId().slice(-8)}`;
  const stream = `${ns}_CMD`;
  await jsm.streams.add({ name: stream, subjects: [`${ns}.cmd.>`], retention: RetentionPolicy.Workqueue });
  await ensureConsumer(jsm, stream, {
    durable: "test",
    filter: `${ns}.cmd.>`,
    ackWaitMs,
    maxDeliver: -1,
    maxAckPending: 100,
  });
  const consumer = await consumeCommands({
    js,
    ns,
    stream,
    durable: "test",
    log: createLogger("silent"),
    commandOf: (subject) => subject.split(".")[2],
    commands: { go: command(Body, (_body, m) => handle(m.info.deliveryCount)) },
    executionOf: (_subject, body) => (body as { id?: string } | undefined)?.id,
    giveUp,
    concurrency,
    ackWaitMs,
    maxDeliver,
    retryDelay: () => 20,
    redeliverOnce: false,
  });
  return {
    send: async () => void (await js.publish(`${ns}.cmd.go`, JSON.stringify({ id: "exec-1" }))),
    consumer,
    stream,
  };
}

async function streamMessages(stream: string): Promise<number> {
  return (await jsm.streams.info(stream)).state.messages;
}

describe("the command consumer", () => {
  it("does not count deliveries that found the work busy toward giving a message up", async () => {
    const givenUp: string[] = [];
    let failedOnce = false;
    let doneAt = 0;
    const { send, consumer, stream } = await consumerOf(
      async (deliveries) => {
        // Busy for many deliveries (another run holds the execution), then one failure, then done.
        if (deliveries <= 8) return { retryInMs: 10 };
        if (!failedOnce) {
          failedOnce = true;
          throw new Error("a store read failed");
        }
        doneAt = deliveries;
      },
      async (id, reason) => void givenUp.push(`${id}: ${reason}`),
    );
    try {
      await send();
      await waitFor(() => doneAt > 0, { timeoutMs: 20_000, what: "the command to be handled" });
      expect(doneAt).toBe(10);
      expect(givenUp).toEqual([]);
      await waitFor(async () => (await streamMessages(stream)) === 0, {
        timeoutMs: 5_000,
        what: "the acknowledged command to leave the work queue",
      });
    } finally {
      await consumer.stop();
    }
  });

  it("keeps trying a message that fails transiently, however often, and gives up one that keeps failing", async () => {
    const givenUp: string[] = [];
    let transientFailures = 0;
    let handled = false;
    const transient = await consumerOf(
      async () => {
        if (transientFailures < 6) {
          transientFailures++;
          throw new TimeoutError();
        }
        handled = true;
      },
      async (id, reason) => void givenUp.push(`${id}: ${reason}`),
    );
    let attempts = 0;
    const failing = await consumerOf(
      async () => {
        attempts++;
        throw new Error("a bug");
      },
      async (id, reason) => void givenUp.push(`${id}: ${reason}`),
    );
    try {
      await transient.send();
      await failing.send();
      await waitFor(() => handled && givenUp.length === 1, {
        timeoutMs: 20_000,
        what: "one command handled, the other given up",
      });
      expect(transientFailures).toBe(6);
      expect(attempts).toBe(3);
      expect(givenUp).toEqual(["exec-1: gave up after 3 failed attempts: a bug"]);
      await waitFor(async () => (await streamMessages(failing.stream)) === 0, {
        timeoutMs: 5_000,
        what: "the given-up command to be dropped",
      });
    } finally {
      await transient.consumer.stop();
      await failing.consumer.stop();
    }
  });

  it("keeps a given-up message while its execution cannot be failed for now, and drops it once it is", async () => {
    let giveUps = 0;
    const { send, consumer, stream } = await consumerOf(
      () => Promise.reject(new Error("a bug")),
      async () => {
        giveUps++;
        // The store was electing a leader the first two times.
        if (giveUps <= 2) throw new TimeoutError();
      },
      { maxDeliver: 1 },
    );
    try {
      await send();
      await waitFor(() => giveUps === 3, { timeoutMs: 20_000, what: "the execution to be failed at the third try" });
      await waitFor(async () => (await streamMessages(stream)) === 0, {
        timeoutMs: 5_000,
        what: "the command to be dropped then",
      });
      expect(giveUps).toBe(3);
    } finally {
      await consumer.stop();
    }
  });
});

/** A bound the test moves by hand. */
class MovableBound implements ConcurrencyBound {
  private readonly listeners = new Set<() => void>();
  constructor(public limit: number) {}
  current(): number {
    return this.limit;
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  move(limit: number): void {
    this.limit = limit;
    for (const listener of this.listeners) listener();
  }
}

describe("the command consumer's bound on messages in hand", () => {
  it("holds no more than the bound, takes more as soon as it rises, and none while a lowered bound is still exceeded", async () => {
    const bound = new MovableBound(2);
    const gates: (() => void)[] = [];
    let holding = 0;
    /** The number held, and the bound, as each message was taken. */
    const takes: { held: number; bound: number }[] = [];
    const { send, consumer, stream } = await consumerOf(
      async () => {
        holding++;
        takes.push({ held: holding, bound: bound.limit });
        await new Promise<void>((resolve) => gates.push(resolve));
        holding--;
      },
      async () => undefined,
      { concurrency: bound, ackWaitMs: 30_000 },
    );
    const release = (n: number) => gates.splice(0, n).forEach((open) => open());
    try {
      for (let i = 0; i < 12; i++) await send();
      await waitFor(() => holding === 2, { what: "two messages in hand" });
      release(1);
      await waitFor(() => takes.length === 3 && holding === 2, { what: "a third taken in the freed place" });

      bound.move(5);
      await waitFor(() => holding === 5, { what: "three more taken once the bound rose, none released" });
      expect((await jsm.consumers.info(stream, "test")).num_ack_pending).toBe(5);

      bound.move(1);
      const before = takes.length;
      release(4);
      await waitFor(() => holding === 1, { what: "four of the five released" });
      expect(takes.length).toBe(before);
      release(1);
      await waitFor(() => takes.length === before + 1, { what: "the next one taken once none is held" });
      while (takes.length < 12) {
        release(1);
        await waitFor(() => gates.length === 1, { what: "the next message in hand" });
      }
      release(1);
      await waitFor(async () => (await streamMessages(stream)) === 0, { what: "every command acknowledged" });
      expect(takes.every((t) => t.held <= t.bound)).toBe(true);
      expect(Math.max(...takes.map((t) => t.held))).toBe(5);
    } finally {
      release(gates.length);
      await consumer.stop();
    }
  });
});

/**
 * The rescue of a work queue's orphans: messages left in the stream below their consumer's ack
 * floor, which nothing delivers again. nats-server 2.9 leaves such after a clustered consumer's
 * leader change; no request puts a consumer in that state, so the rescue here is given a consumer
 * info that says what such a server says: an ack floor past a message it never saw acknowledged.
 */
/** A work queue of two messages whose consumer lost track of the first (seq 1): its ack floor is past it. */
async function queueWithOrphan(): Promise<{ ns: string; stream: string; lostTrack: JetStreamManager }> {
  const ns = `orph${newId().slice(-8)}`;
  const stream = `${ns}_CMD`;
  await jsm.streams.add({ name: stream, subjects: [`${ns}.cmd.>`], retention: RetentionPolicy.Workqueue });
  const h = headers();
  h.set("X-Test", "first");
  await js.publish(`${ns}.cmd.exec.start.e1`, JSON.stringify({ executionId: "e1" }), { msgID: "start-e1", headers: h });
  await js.publish(`${ns}.cmd.exec.start.e2`, JSON.stringify({ executionId: "e2" }));
  await jsm.consumers.add(stream, {
    durable_name: "executor",
    filter_subject: `${ns}.cmd.exec.>`,
    ack_policy: AckPolicy.Explicit,
  });
  const lostTrack = await jetstreamManager(nc);
  const info = lostTrack.consumers.info.bind(lostTrack.consumers);
  lostTrack.consumers.info = async (...args) => {
    const i = await info(...args);
    return { ...i, ack_floor: { ...i.ack_floor, stream_seq: Math.max(1, i.ack_floor.stream_seq) } };
  };
  return { ns, stream, lostTrack };
}

describe("the rescue of a work queue's orphans", () => {
  it("publishes an orphan again once it has looked orphaned for the grace period, with its headers and original sequence", async () => {
    const { ns, stream, lostTrack } = await queueWithOrphan();
    const rescue = new OrphanRescue(lostTrack, js, stream, "executor", createLogger("silent"));
    const t = Date.now();
    expect(await rescue.check(t)).toBe(0);
    expect(await rescue.check(t + ORPHAN_GRACE_MS - 1)).toBe(0);
    expect(await rescue.check(t + ORPHAN_GRACE_MS)).toBe(1);

    // The original is gone; the copy is delivered in its turn, after the message that was waiting.
    expect(await jsm.streams.getMessage(stream, { seq: 1 })).toBeNull();
    const consumer = await js.consumers.get(stream, "executor");
    const got = [];
    for await (const m of await consumer.fetch({ max_messages: 2, expires: 2_000 })) {
      got.push({
        subject: m.subject,
        body: m.json(),
        test: m.headers?.get("X-Test") ?? null,
        commandSeq: commandSeq(m),
        seq: m.seq,
      });
      m.ack();
      if (got.length === 2) break;
    }
    expect(got).toEqual([
      { subject: `${ns}.cmd.exec.start.e2`, body: { executionId: "e2" }, test: null, commandSeq: 2, seq: 2 },
      { subject: `${ns}.cmd.exec.start.e1`, body: { executionId: "e1" }, test: "first", commandSeq: 1, seq: 3 },
    ]);
    expect(await rescue.check(t + 2 * ORPHAN_GRACE_MS)).toBe(0);
  });

  it("leaves one copy when replicas rescue the same orphan", async () => {
    const { stream, lostTrack } = await queueWithOrphan();
    // Both replicas must find the orphan before either removes it, or the second one never sees it
    // and the message id (what this proves) is never put to work: each removal waits for both.
    const remove = lostTrack.streams.deleteMessage.bind(lostTrack.streams);
    let removing = 0;
    let bothPublished!: () => void;
    const published = new Promise<void>((resolve) => (bothPublished = resolve));
    lostTrack.streams.deleteMessage = async (...args) => {
      if (++removing === 2) bothPublished();
      await published;
      return remove(...args);
    };
    const replicas = [0, 1].map(() => new OrphanRescue(lostTrack, js, stream, "executor", createLogger("silent")));
    const t = Date.now();
    for (const r of replicas) await r.check(t);
    expect(await Promise.all(replicas.map((r) => r.check(t + ORPHAN_GRACE_MS)))).toEqual([1, 1]);
    expect((await jsm.streams.info(stream)).state.messages).toBe(2);
  });

  it("never takes a message its consumer still has to deliver, or holds unacknowledged", async () => {
    const { ns, stream, lostTrack } = await queueWithOrphan();
    await js.publish(`${ns}.cmd.exec.start.e3`, JSON.stringify({ executionId: "e3" }));
    const consumer = await js.consumers.get(stream, "executor");
    // e1 and e2 delivered and held (not acknowledged); e3 not delivered yet.
    const held = [await consumer.next({ expires: 2_000 }), await consumer.next({ expires: 2_000 })];
    expect(held.map((m) => m?.seq)).toEqual([1, 2]);
    const rescue = new OrphanRescue(lostTrack, js, stream, "executor", createLogger("silent"));
    const t = Date.now();
    await rescue.check(t);
    expect(await rescue.check(t + ORPHAN_GRACE_MS)).toBe(1);
    const left = await Promise.all(
      [2, 3].map(async (seq) => (await jsm.streams.getMessage(stream, { seq }))?.subject ?? null),
    );
    expect(left).toEqual([`${ns}.cmd.exec.start.e2`, `${ns}.cmd.exec.start.e3`]);
  });
});
