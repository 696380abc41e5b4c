import { describe, expect, it } from "vitest";
import { startNatsCluster } from "./nats-cluster";
import { processesWithArg } from "./sleepers";

describe("the test cluster launcher", () => {
  it("stops the members it started when the cluster is not ready in time", async () => {
    const name = `unready-${process.pid}-${Date.now().toString(36)}`;
    // No three members elect a meta leader and place a stream within a millisecond.
    await expect(startNatsCluster(3, name, 1)).rejects.toThrow("timed out");
    expect(processesWithArg(name)).toEqual([]);
  });
});
