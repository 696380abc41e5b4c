import { describe, expect, it } from "vitest";
import { AUDIT_WINDOW_MS, AuditBudget } from "./audit-budget";

const T0 = 1_800_000_000_000 - (1_800_000_000_000 % AUDIT_WINDOW_MS);

describe("the audit budget", () => {
  it("records a source's first refusals of a minute, counts the rest, and summarises them once the minute ended", () => {
    let now = T0;
    const budget = new AuditBudget<string>(3, 100, () => now);
    const admitted = Array.from({ length: 10 }, (_, i) => budget.admit("10.0.0.1", "bad_secret", `req ${i}`));
    expect(admitted).toEqual([true, true, true, false, false, false, false, false, false, false]);
    // Another address has a budget of its own; another reason from the same address does not,
    // or the answer's time (a recorded refusal waits for its writes) would tell the reasons apart.
    expect(budget.admit("10.0.0.2", "bad_secret", "other address")).toBe(true);
    expect(budget.admit("10.0.0.1", "unknown_key", "other reason")).toBe(false);
    expect(budget.drain()).toEqual([]);

    now = T0 + AUDIT_WINDOW_MS;
    expect(budget.admit("10.0.0.1", "bad_secret", "next minute")).toBe(true);
    const end = T0 + AUDIT_WINDOW_MS;
    expect(budget.drain()).toEqual([
      { ip: "10.0.0.1", reason: "bad_secret", count: 7, last: "req 9", windowEnd: end },
      { ip: "10.0.0.1", reason: "unknown_key", count: 1, last: "other reason", windowEnd: end },
    ]);
    expect(budget.drain()).toEqual([]);
  });

  it("bounds the records of a minute from all sources, and drains the current minute when asked for all", () => {
    const budget = new AuditBudget<number>(5, 4, () => T0 + 10);
    const admitted = Array.from({ length: 8 }, (_, i) => budget.admit(`10.0.0.${i}`, "missing", i));
    expect(admitted.filter(Boolean)).toHaveLength(4);
    expect(budget.drain()).toEqual([]);
    const summaries = budget.drain(true);
    expect(summaries.map((s) => [s.ip, s.count])).toEqual([4, 5, 6, 7].map((i) => [`10.0.0.${i}`, 1]));
  });

  it("keeps at most 100 summaries a minute: the largest counts, and one per reason for the others", () => {
    const budget = new AuditBudget<number>(1, 1_000_000, () => T0);
    for (let ip = 0; ip < 150; ip++)
      for (let n = 0; n <= 1 + (ip % 3); n++) budget.admit(`10.0.${ip}`, ip % 2 === 0 ? "missing" : "malformed", n);
    const summaries = budget.drain(true);
    const bySource = summaries.filter((s) => s.ip !== "*");
    const rest = summaries.filter((s) => s.ip === "*");
    expect(bySource).toHaveLength(100);
    expect(rest.map((r) => r.reason).sort()).toEqual(["malformed", "missing"]);
    // Every counted refusal is in one summary: 150 addresses, 1 + (ip % 3) counted each.
    const counted = Array.from({ length: 150 }, (_, ip) => 1 + (ip % 3)).reduce((a, b) => a + b, 0);
    expect(summaries.reduce((n, s) => n + s.count, 0)).toBe(counted);
    // 50 addresses each had 3, 2 and 1 counted: the 100 summarised alone are those with 3 and 2.
    expect(Math.min(...bySource.map((s) => s.count))).toBe(2);
    expect(rest.reduce((n, r) => n + r.count, 0)).toBe(50);
  });
});
