import { Kvm, type KvEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { connectNats } from "@wf/shared/nats";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/shared/testing";
import { KvFollower } from "./kv-follow";

let server: NatsServerHandle;
let follower: NatsConnection;
let writer: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  follower = await connectNats(server.url, "follower");
  writer = await connectNats(server.url, "writer");
});
afterAll(async () => {
  await follower?.close();
  await writer?.close();
  await server?.stop();
});

describe("KvFollower", () => {
  it("hands over every value another connection puts, with its revision, and no deletes or purges", async () => {
    const bucket = `follow${newId().slice(-8)}`;
    const kv = await new Kvm(follower).create(bucket, { history: 1 });
    const seen: KvEntry[] = [];
    const f = new KvFollower(kv, (e) => {
      if (e.key === "bad") e.json();
      seen.push(e);
    });
    const theirs = await new Kvm(writer).open(bucket);
    // Written until the watch is up: only puts made after it exist are delivered.
    await waitFor(async () => {
      await theirs.put("ping", "1");
      return seen.length > 0 ? true : undefined;
    }, { what: "the watch to deliver a put" });
    const a1 = await theirs.put("a", JSON.stringify({ n: 1 }));
    await theirs.delete("a");
    const b1 = await theirs.put("b", JSON.stringify({ n: 2 }));
    await theirs.purge("b");
    // A value that cannot be read by the owner's callback does not end the watch.
    await theirs.put("bad", "not json");
    const a2 = await theirs.put("a", JSON.stringify({ n: 3 }));
    await waitFor(async () => (seen.some((e) => e.revision === a2) ? true : undefined), { what: "the last put" });
    f.stop();
    const rest = seen.filter((e) => e.key !== "ping").map((e) => ({ key: e.key, revision: e.revision, value: e.json<{ n: number }>().n, operation: e.operation }));
    expect(rest).toEqual([
      { key: "a", revision: a1, value: 1, operation: "PUT" },
      { key: "b", revision: b1, value: 2, operation: "PUT" },
      { key: "a", revision: a2, value: 3, operation: "PUT" },
    ]);
  });

  it("delivers nothing once stopped", async () => {
    const bucket = `follow${newId().slice(-8)}`;
    const kv = await new Kvm(follower).create(bucket, { history: 1 });
    const stopped: string[] = [];
    const running: string[] = [];
    const f = new KvFollower(kv, (e) => stopped.push(e.key));
    const g = new KvFollower(kv, (e) => running.push(e.key));
    const theirs = await new Kvm(writer).open(bucket);
    await waitFor(async () => {
      await theirs.put("ping", "1");
      return stopped.length > 0 && running.length > 0 ? true : undefined;
    }, { what: "both watches to deliver a put" });
    f.stop();
    await theirs.put("after", "1");
    await theirs.put("later", "1");
    // Two puts past the stop, the second seen by the running watch: a watch still running would have had the first.
    await waitFor(async () => (running.includes("later") ? true : undefined), { what: "the running watch to deliver both puts" });
    g.stop();
    expect(running).toContain("after");
    expect(stopped).not.toContain("after");
    expect(stopped).not.toContain("later");
  });
});
