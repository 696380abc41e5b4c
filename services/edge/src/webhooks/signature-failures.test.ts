import { describe, expect, it } from "vitest";
import { SignatureFailures } from "./signature-failures";

describe("the budget of wrong webhook signatures", () => {
  it("refuses an address past its budget until a minute from its first failure has passed", () => {
    const failures = new SignatureFailures(2);
    const t0 = 1_000_000;
    expect(failures.retryAfterSeconds("w1", "192.0.2.1", t0)).toBeNull();
    failures.fail("w1", "192.0.2.1", t0);
    failures.fail("w1", "192.0.2.1", t0 + 10_000);
    expect(failures.retryAfterSeconds("w1", "192.0.2.1", t0 + 10_000)).toBe(50);
    expect(failures.retryAfterSeconds("w1", "192.0.2.1", t0 + 59_500)).toBe(1);
    // Another address, another webhook: budgets of their own.
    expect(failures.retryAfterSeconds("w1", "192.0.2.2", t0 + 10_000)).toBeNull();
    expect(failures.retryAfterSeconds("w2", "192.0.2.1", t0 + 10_000)).toBeNull();
    // The minute over, a new one starts at the next failure.
    expect(failures.retryAfterSeconds("w1", "192.0.2.1", t0 + 60_000)).toBeNull();
    failures.fail("w1", "192.0.2.1", t0 + 61_000);
    expect(failures.retryAfterSeconds("w1", "192.0.2.1", t0 + 61_000)).toBeNull();
  });

  it("counts an IPv6 address by its /64 and a dual-stack IPv4 address as the IPv4 one", () => {
    const failures = new SignatureFailures(2);
    failures.fail("w1", "2001:db8::1", 0);
    failures.fail("w1", "2001:db8::ffff:2", 0);
    expect(failures.retryAfterSeconds("w1", "2001:db8:0:0:1::9", 0)).toBe(60);
    expect(failures.retryAfterSeconds("w1", "2001:db8:0:1::1", 0)).toBeNull();
    failures.fail("w1", "::ffff:192.0.2.1", 0);
    failures.fail("w1", "192.0.2.1", 0);
    expect(failures.retryAfterSeconds("w1", "::ffff:192.0.2.1", 0)).toBe(60);
  });
});
