import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NoRespondersError, RequestError, TimeoutError, type NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connectNats } from "@wf/shared/nats";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";

/**
 * The service's connections end a settled request without a fresh error (settled-requests.ts): every way a request
 * ends must still reach its caller as before.
 */
let server: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats(server.url, "settled-requests-test");
});
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

describe("requests on a service connection", () => {
  it("resolve with their answer, one after another and many at once", async () => {
    const sub = nc.subscribe("echo", { callback: (_err, m) => void m.respond(`re:${m.string()}`) });
    try {
      expect((await nc.request("echo", "one")).string()).toBe("re:one");
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => nc.request("echo", String(i))));
      expect(answers.map((a) => a.string())).toEqual(Array.from({ length: 100 }, (_, i) => `re:${i}`));
    } finally {
      sub.unsubscribe();
    }
  });

  it("reject with no responders, and time out, as the client says", async () => {
    const nobody = await nc.request("nobody.here", "x").catch((err: unknown) => err);
    expect(nobody).toBeInstanceOf(RequestError);
    expect((nobody as RequestError).cause).toBeInstanceOf(NoRespondersError);
    const silent = nc.subscribe("silent", { callback: () => undefined });
    await nc.flush();
    try {
      await expect(nc.request("silent", "x", { timeout: 200 })).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      silent.unsubscribe();
    }
  });

  it("carry JetStream writes and their refusals", async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "SETTLED", subjects: ["settled.>"] });
    const js = jetstream(nc);
    expect((await js.publish("settled.a", "1")).seq).toBe(1);
    await expect(js.publish("settled.a", "2", { expect: { lastSequence: 0 } })).rejects.toThrow(/wrong last sequence/);
    expect((await js.publish("settled.a", "3", { expect: { lastSequence: 1 } })).seq).toBe(2);
  });

  it("reject when the connection closes before the answer", async () => {
    const other = await connectNats(server.url, "settled-requests-closing");
    const silent = nc.subscribe("never.answered", { callback: () => undefined });
    // The server knows of the subscriber before the request: otherwise it answers "no responders" at once.
    await nc.flush();
    try {
      const pending = other.request("never.answered", "x", { timeout: 10_000 }).catch((err: unknown) => err);
      await other.flush();
      await other.close();
      const err = await pending;
      expect(err).toBeInstanceOf(RequestError);
      expect((err as Error).message).toMatch(/closed/);
    } finally {
      silent.unsubscribe();
    }
  });
});
