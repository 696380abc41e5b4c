import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "@nats-io/transport-node";
import { subjects } from "@wf/shared/nats";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/testing";
import { EdgeLatencies, followEdgeLatencies } from "./edge-latencies";

const report = (edge: string, p99Ms: number, triggers = 100) => JSON.stringify({ edge, p99Ms, triggers });

describe("the edges' trigger latencies, as an executor hears them", () => {
  it("is the slowest edge heard within a second and a half, and nothing once none is", () => {
    let now = 0;
    const edges = new EdgeLatencies(() => now);
    expect(edges.slowest()).toBeNull();
    edges.heard(report("a", 12));
    edges.heard(report("b", 70));
    expect(edges.slowest()).toBe(70);
    // b's newer report replaces its older one.
    now = 500;
    edges.heard(report("b", 20));
    expect(edges.slowest()).toBe(20);
    now = 1_000;
    edges.heard(report("b", 10));
    expect(edges.slowest()).toBe(12);
    // a is not heard again: 1.5 s after its report it still counts, past it not.
    now = 1_500;
    expect(edges.slowest()).toBe(12);
    now = 1_501;
    expect(edges.slowest()).toBe(10);
    now = 2_501;
    expect(edges.slowest()).toBeNull();
  });

  it("drops a report that is not one", () => {
    const edges = new EdgeLatencies(() => 0);
    for (const bad of [
      "not json",
      JSON.stringify({ edge: "a", p99Ms: -1, triggers: 1 }),
      JSON.stringify({ edge: "a", p99Ms: 5, triggers: 0 }),
      JSON.stringify({ edge: "", p99Ms: 5, triggers: 1 }),
      JSON.stringify({ edge: "x".repeat(65), p99Ms: 5, triggers: 1 }),
      JSON.stringify({ p99Ms: 5, triggers: 1 }),
    ])
      edges.heard(bad);
    expect(edges.slowest()).toBeNull();
  });

  it("keeps at most 1,024 edges, making room from the silent ones", () => {
    let now = 0;
    const edges = new EdgeLatencies(() => now);
    for (let i = 0; i < 1_024; i++) edges.heard(report(`e${i}`, 1));
    // The 1,025th is not kept while all the others are heard from...
    edges.heard(report("late", 900));
    expect(edges.slowest()).toBe(1);
    // ...but is once they have gone silent.
    now = 2_000;
    edges.heard(report("late", 900));
    expect(edges.slowest()).toBe(900);
  });

  describe("over NATS", () => {
    let server: NatsServerHandle;
    beforeAll(async () => {
      server = await startNatsServer();
    });
    afterAll(async () => {
      await server.stop();
    });

    it("follows the reports published on <ns>.edge.latency until told to stop", async () => {
      const nc = await connect({ servers: server.url });
      try {
        const edges = new EdgeLatencies();
        const stop = followEdgeLatencies(nc, "lat", edges);
        await nc.flush();
        nc.publish(subjects("lat").edgeLatency, report("a", 33));
        nc.publish(subjects("other").edgeLatency, report("b", 99));
        await waitFor(() => edges.slowest() === 33, { timeoutMs: 5_000, what: "the report of edge a" });
        stop();
        await nc.flush();
        nc.publish(subjects("lat").edgeLatency, report("c", 44));
        await nc.flush();
        // A round trip after the publish: had the subscription still been there, the report would have arrived.
        expect(edges.slowest()).toBe(33);
      } finally {
        await nc.close();
      }
    });
  });
});
