import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readMessages, writeMessage, type ClientMessage } from "./protocol";
import { RunnerConnection } from "./runner-connection";
import { step } from "./testing/processes";
import { refusedIsolation } from "./types";

/** A peer that says it queued every run and never runs it: a JavaScript host an exploit took over, say. */
async function queuingPeer(): Promise<{ client: Socket; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "wf-runner-connection-"));
  const path = join(dir, "peer.sock");
  const server: Server = createServer((socket) => {
    readMessages<ClientMessage>(socket, (msg) => {
      if (msg.t === "run") writeMessage(socket, { t: "queued", id: msg.id });
    });
    writeMessage(socket, { t: "ready", isolation: refusedIsolation("a test peer") });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = createConnection(path);
  return {
    client,
    close: async () => {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe("a runner connection's stuck clock", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it("is not stopped by a JavaScript host that says it queued a run: the run fails as timed out and the host is reported stuck", async () => {
    const peer = await queuingPeer();
    close = peer.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(peer.client, (why) => stuck.push(why), true, false);
    const result = await conn.run(step("javascript", "return 1", { timeoutMs: 100 }), {} as never);
    expect(result).toMatchObject({ ok: false, timedOut: true });
    expect(stuck).toHaveLength(1);
  });

  it("is stopped while a sandbox runner says the run waits for its owner's turn", async () => {
    const peer = await queuingPeer();
    close = peer.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(peer.client, (why) => stuck.push(why), true, true);
    const controller = new AbortController();
    const result = conn.run(step("bash", "echo 1", { timeoutMs: 100 }), {} as never, controller.signal);
    // Past the timeout and the grace (5.1 s) it is still waiting, and nobody called the runner stuck.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(stuck).toEqual([]);
    controller.abort();
    expect(await result).toMatchObject({ ok: false, error: "aborted" });
  });
});
