import { describe, expect, it } from "vitest";
import { LoginThrottle, type Admission, type LoginOutcome } from "./login-throttle";

const T = Date.UTC(2030, 0, 1);
const budgets = { perAccount: 3, perAddress: 5, windowMs: 60_000 };

/** One login attempt that ends with `outcome`; the admission it had. */
function attempt(
  throttle: LoginThrottle,
  email: string,
  ip: string,
  now: number,
  outcome: LoginOutcome = "failed",
): Admission {
  const admission = throttle.admit(email, ip, now);
  if (admission.admitted) admission.attempt.settle(outcome);
  return admission;
}

describe("LoginThrottle", () => {
  it("refuses an email from an address past its budget until the window its first attempt started ends", () => {
    const throttle = new LoginThrottle(budgets);
    for (let i = 0; i < 3; i++) expect(attempt(throttle, "a@x", "192.0.2.1", T + i * 1_000).admitted).toBe(true);
    expect(attempt(throttle, "a@x", "192.0.2.1", T + 10_000)).toEqual({ admitted: false, retryAfterSeconds: 50 });
    // The owner elsewhere, and other emails from this address, are not held up.
    expect(attempt(throttle, "a@x", "198.51.100.1", T + 10_000, "succeeded").admitted).toBe(true);
    expect(attempt(throttle, "b@x", "192.0.2.1", T + 10_000).admitted).toBe(true);
    expect(attempt(throttle, "a@x", "192.0.2.1", T + 59_999)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(attempt(throttle, "a@x", "192.0.2.1", T + 60_000).admitted).toBe(true);
  });

  it("refuses an address past its budget whatever the email, an IPv6 address by its /64", () => {
    const throttle = new LoginThrottle(budgets);
    for (let i = 0; i < 5; i++)
      expect(attempt(throttle, `user${i}@x`, `2001:db8:0:1::${i + 1}`, T).admitted).toBe(true);
    expect(attempt(throttle, "fresh@x", "2001:db8:0:1:ffff::9", T + 30_000)).toEqual({
      admitted: false,
      retryAfterSeconds: 30,
    });
    expect(attempt(throttle, "fresh@x", "2001:db8:0:2::1", T + 30_000).admitted).toBe(true);
  });

  it("counts attempts still being checked, so a burst cannot pass the budget before its failures are known", () => {
    const throttle = new LoginThrottle(budgets);
    const burst = Array.from({ length: 5 }, () => throttle.admit("a@x", "192.0.2.1", T));
    expect(burst.map((a) => a.admitted)).toEqual([true, true, true, false, false]);
    // Answered without a word about the password (the store failed): nothing is counted.
    for (const a of burst) if (a.admitted) a.attempt.settle("unchecked");
    expect(attempt(throttle, "a@x", "192.0.2.1", T).admitted).toBe(true);
  });

  it("clears an email's failures from an address when it logs in there, never the address's", () => {
    const throttle = new LoginThrottle(budgets);
    for (let i = 0; i < 2; i++) attempt(throttle, "a@x", "192.0.2.1", T);
    attempt(throttle, "a@x", "192.0.2.1", T, "succeeded");
    for (let i = 0; i < 2; i++) expect(attempt(throttle, "a@x", "192.0.2.1", T).admitted).toBe(true);
    // The address has its four failures: one more, then every email is refused.
    expect(attempt(throttle, "b@x", "192.0.2.1", T).admitted).toBe(true);
    expect(attempt(throttle, "a@x", "192.0.2.1", T, "succeeded").admitted).toBe(false);
  });

  it("counts a settled attempt once", () => {
    const throttle = new LoginThrottle(budgets);
    const a = throttle.admit("a@x", "192.0.2.1", T);
    if (!a.admitted) throw new Error("refused");
    a.attempt.settle("failed");
    a.attempt.settle("failed");
    a.attempt.settle("unchecked");
    expect([1, 2].map(() => attempt(throttle, "a@x", "192.0.2.1", T).admitted)).toEqual([true, true]);
    expect(attempt(throttle, "a@x", "192.0.2.1", T).admitted).toBe(false);
  });
});
