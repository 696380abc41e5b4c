import { describe, expect, it } from "vitest";
import { clusterCasWarning, serverAtLeast } from "./server-version";

describe("serverAtLeast", () => {
  it("compares major then minor, with or without a leading v, and takes an unknown version as too old", () => {
    const at = (version: string | undefined) => serverAtLeast(version, 2, 10);
    expect(["2.9.10", "v2.10.0", "2.10.4", "2.15.1", "3.0.0", "1.99.0", undefined, ""].map(at)).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe("clusterCasWarning", () => {
  it("warns of a cluster older than 2.10 only", () => {
    expect(clusterCasWarning({ version: "2.9.10", cluster: "wf" })).toMatch(
      /^nats-server 2\.9\.10 in cluster wf lets two compare-and-set writes/,
    );
    expect(clusterCasWarning({ version: "2.10.0", cluster: "wf" })).toBeNull();
    expect(clusterCasWarning({ version: "2.9.10" })).toBeNull();
    expect(clusterCasWarning(undefined)).toBeNull();
  });
});
