import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamNames } from "@wf/shared/nats";
import type { NatsServerHandle } from "@wf/testing";
import { useNatsServer } from "@wf/testing/nats-connection";
import { run, startRuntime, testConfig, waitFor, waitForStatus, type InProcessRuntime } from "../support/runtime";

interface Conn {
  name?: string;
  in_msgs: number;
}

/** The server's client connections, by name (nats-server's /connz). */
async function connections(server: NatsServerHandle): Promise<Conn[]> {
  const res = await fetch(`${server.monitorUrl!}/connz?limit=1024`);
  return ((await res.json()) as { connections: Conn[] | null }).connections ?? [];
}

const WORKFLOW = `
name: three
steps:
  - { name: a, type: transform, output: 1 }
  - { name: b, type: transform, output: "{{ steps.a.output + 1 }}" }
  - { name: c, type: transform, output: "{{ steps.b.output + 1 }}" }
`;

describe("the executor's connections", () => {
  // Monitoring on: the test reads the server's connections.
  const nats = useNatsServer({ monitor: true });
  let rt: InProcessRuntime | undefined;

  beforeAll(async () => {
    rt = await startRuntime(testConfig(nats.server), { scheduler: false, approvals: false });
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it("publishes events over a connection of their own, which closes with the platform", async () => {
    const { platform, ns } = rt!;
    const ids = await Promise.all(Array.from({ length: 5 }, () => run(platform, WORKFLOW)));
    for (const id of ids) expect((await waitForStatus(platform, id)).status).toBe("COMPLETED");
    const events = (await platform.jsm.streams.info(streamNames(ns).evt)).state.messages;
    expect(events).toBe(5 * 8);

    const byName = new Map((await connections(nats.server)).map((c) => [c.name, c]));
    // Its events, and nothing else: the records' writes and the commands go over the platform's connection.
    expect(byName.get("wf-test-events")?.in_msgs).toBe(events);
    expect(byName.get("wf-test")!.in_msgs).toBeGreaterThan(0);

    await rt!.stop();
    rt = undefined;
    // The server lets go of a drained connection a moment after the client does.
    await waitFor(async () => (await connections(nats.server)).every((c) => !c.name?.startsWith("wf-test")), {
      timeoutMs: 5_000,
      what: "the runtime's connections to close",
    });
  });
});
