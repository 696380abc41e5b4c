import { describe, expect, it } from "vitest";
import { chainTriggers, nextTick, scheduleFingerprint, scheduleTriggers } from "./stored-triggers";

const at = (iso: string) => Date.parse(iso);
const chained = (after: string, extra: Record<string, unknown> = {}) => ({
  type: "DELAYED_COMPLETION",
  after,
  delay: 1,
  ...extra,
});

describe("stored triggers", () => {
  it("keys each chained trigger by its workflow, the workflow it follows, and its rank among those", () => {
    const definition = {
      triggers: [chained("a"), { type: "schedule", cron: "* * * * *" }, chained("b"), chained("a", { on: ["FAILED"] })],
    };
    expect(chainTriggers("w1", definition).map((c) => [c.key, c.trigger.on])).toEqual([
      ["w1:a:0", ["COMPLETED"]],
      ["w1:b:0", ["COMPLETED"]],
      ["w1:a:1", ["FAILED"]],
    ]);
  });

  it("keeps a chained trigger's key when its delay, states or cap change", () => {
    const before = chainTriggers("w1", { triggers: [chained("a")] });
    const after = chainTriggers("w1", { triggers: [chained("a", { delay: 30, on: ["FAILED"], max_runs: 3 })] });
    expect(after.map((c) => c.key)).toEqual(before.map((c) => c.key));
  });

  it("reads no triggers from a definition that has none or does not pass the schema", () => {
    expect(scheduleTriggers({ steps: [] })).toEqual([]);
    expect(scheduleTriggers({ triggers: [{ type: "schedule", cron: "61 * * * *" }] })).toEqual([]);
    expect(chainTriggers("w1", "not a definition")).toEqual([]);
  });

  it("gives equal fingerprints to equal schedules only, spacing and the default zone aside", () => {
    const fp = (cron: string, timezone?: string) =>
      scheduleFingerprint(
        scheduleTriggers({ triggers: [{ type: "schedule", cron, ...(timezone ? { timezone } : {}) }] }),
      );
    expect(fp("*/5  * * * *")).toBe(fp("*/5 * * * *", "UTC"));
    expect(fp("*/5 * * * *", "Europe/Berlin")).not.toBe(fp("*/5 * * * *"));
    expect(fp("*/10 * * * *")).not.toBe(fp("*/5 * * * *"));
  });

  it("ticks at the earliest next time of all the schedules", () => {
    const triggers = scheduleTriggers({
      triggers: [
        { type: "schedule", cron: "0 * * * *" },
        { type: "schedule", cron: "30 9 * * *", timezone: "Europe/Berlin" },
      ],
    });
    expect(nextTick(triggers, at("2025-01-01T08:10:00Z"))).toBe(at("2025-01-01T08:30:00Z"));
    expect(nextTick(triggers, at("2025-01-01T08:30:00Z"))).toBe(at("2025-01-01T09:00:00Z"));
    expect(nextTick([], at("2025-01-01T08:30:00Z"))).toBeNull();
  });
});
