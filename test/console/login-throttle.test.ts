import { describe, expect, it } from "vitest";
import { createUser } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import { Registry, type Metric } from "@wf/shared/metrics";
import type { UserRecord } from "@wf/shared/store";
import { edgeMetrics } from "@wf/edge";
import { waitFor } from "@wf/testing";
import { useConsole } from "./support";

/**
 * The console login under a flood of wrong passwords, at the production scrypt cost. The budgets and
 * the queue are lowered from their defaults (50 per address, 10 per account, 16 waiting) to what
 * each rule needs to show itself, each kept above the one it must exceed as the defaults are: every
 * admitted check is half a second of a core, and at the defaults the file took ~50 of them. Each
 * test's client has addresses of its own (X-Forwarded-For from a trusted loopback proxy), as budgets
 * are per address.
 */
const PER_ADDRESS = 7;
const PER_ACCOUNT = 5;
const CONCURRENCY = 2;
const QUEUE = 6;
const env = useConsole({
  runtime: false,
  env: {
    WF_TRUSTED_PROXIES: "loopback",
    WF_LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
    WF_LOGIN_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT),
    WF_PASSWORD_HASH_CONCURRENCY: String(CONCURRENCY),
    WF_PASSWORD_HASH_QUEUE: String(QUEUE),
  },
});

const PASSWORD = "correct horse battery";

interface LoginAnswer {
  status: number;
  code: unknown;
  retryAfter: string | null;
  body: Record<string, unknown>;
  ms: number;
}

async function login(email: string, password: string, from: string): Promise<LoginAnswer> {
  const started = performance.now();
  const r = await fetch(`${env().base}/api/console/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": from },
    body: JSON.stringify({ email, password }),
  });
  const body = (await r.json()) as Record<string, unknown>;
  return {
    status: r.status,
    code: body.code,
    retryAfter: r.headers.get("retry-after"),
    body,
    ms: performance.now() - started,
  };
}

async function user(): Promise<UserRecord> {
  return createUser(env().platform.store, { email: `${newId()}@example.com`, password: PASSWORD, plan: "free" });
}

/** What `/metrics` shows of the edge's metric `name` (with `labels`): the edge runs in this process. */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const registry = new Registry();
  const metrics: Metric[] = [...edgeMetrics];
  for (const m of metrics) registry.registerMetric(m);
  const found = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (found?.values ?? []).filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return values.reduce((sum, v) => sum + v.value, 0);
}

const hashes = () => metric("wf_password_hashes_total");
const throttled = () => metric("wf_console_logins_total", { outcome: "throttled" });

/** A client address of its own for each call. */
let lastAddress = 0;
const address = () => `198.51.100.${++lastAddress}`;

describe("console login throttling", () => {
  // Fairness is judged by order, not by the clock: checks served in arrival order would hold the other
  // account's login behind the flood's admitted checks; lanes let it pass after at most a check or two.
  it("answers 429 LOGIN_THROTTLED past an account's budget, unchecked, while another account logs in ahead of the flood", async () => {
    const [target, other] = await Promise.all([user(), user()]);
    const attacker = address();
    const [hashesBefore, throttledBefore] = [await hashes(), await throttled()];

    let checked = 0;
    const flood = Array.from({ length: 40 }, (_, i) =>
      login(target.email, `wrong password ${i}`, attacker).then((a) => {
        if (a.status === 401) checked++;
        return a;
      }),
    );
    // Every one of the 40 has arrived once all but PER_ACCOUNT are refused; those admitted are still being checked.
    await waitFor(async () => (await throttled()) - throttledBefore === 40 - PER_ACCOUNT, {
      what: "the flood's refusals",
    });
    expect((await hashes()) - hashesBefore).toBeLessThan(PER_ACCOUNT);

    // Meanwhile: another account, from the flood's own address (an office behind one NAT).
    const checkedBefore = checked;
    const meanwhile = await login(other.email, PASSWORD, attacker);
    expect(meanwhile.status).toBe(200);
    console.log(
      `another account's login: ${Math.round(meanwhile.ms)} ms; ${checked - checkedBefore} of the flood's checks ended meanwhile`,
    );
    expect(checked - checkedBefore, "the flood's checks that went first").toBeLessThanOrEqual(2);
    // The target's owner, from elsewhere, is not locked out.
    const owner = await login(target.email, PASSWORD, address());
    expect(owner.status).toBe(200);

    const answers = await Promise.all(flood);
    expect(answers.filter((a) => a.status === 401).map((a) => a.code)).toEqual(Array(PER_ACCOUNT).fill("LOGIN_FAILED"));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(40 - PER_ACCOUNT);
    for (const r of refused) {
      expect(r.code).toBe("LOGIN_THROTTLED");
      const seconds = Number(r.retryAfter);
      expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 900, `Retry-After ${r.retryAfter}`).toBe(true);
      expect(r.body.retryAfterSeconds).toBe(seconds);
    }

    // One scrypt per checked attempt: the flood's PER_ACCOUNT, the two logins'; none for the refused.
    expect((await hashes()) - hashesBefore).toBe(PER_ACCOUNT + 2);
    // The right password, from the throttled address, is refused unchecked too.
    expect((await login(target.email, PASSWORD, attacker)).code).toBe("LOGIN_THROTTLED");
    expect((await hashes()) - hashesBefore).toBe(PER_ACCOUNT + 2);

    const { items } = await env().platform.store.audit.listSince(0, { page: 1, size: 100 });
    const audited = items.filter((r) => r.reason === "login_throttled" && r.ip === attacker);
    // Within the audit budget of an address (WF_AUDIT_PER_IP_PER_MINUTE, 20), one by one.
    expect(audited.length).toBeGreaterThanOrEqual(20);
    expect(audited[0]).toMatchObject({ keyId: null, method: "POST", path: "/api/console/login", repeats: 0 });
  });

  it("answers 429 to every email from an address past the address's budget, without a scrypt", async () => {
    const known = await user();
    const sprayer = address();
    const spray = await Promise.all(
      Array.from({ length: PER_ADDRESS }, () => login(`${newId()}@example.com`, "guess", sprayer)),
    );
    expect(spray.map((a) => a.code)).toEqual(Array(PER_ADDRESS).fill("LOGIN_FAILED"));
    const before = await hashes();
    const fresh = await login(`${newId()}@example.com`, "guess", sprayer);
    expect([fresh.status, fresh.code]).toEqual([429, "LOGIN_THROTTLED"]);
    expect((await login(known.email, PASSWORD, sprayer)).code).toBe("LOGIN_THROTTLED");
    expect(await hashes()).toBe(before);
    // Another address is not concerned.
    expect((await login(known.email, PASSWORD, address())).status).toBe(200);
  });

  it("refuses password checks past its concurrency and queue with 503 at once, unknown emails checked as known ones", async () => {
    const [before, busyBefore] = [await hashes(), await metric("wf_console_logins_total", { outcome: "busy" })];
    const burst = await Promise.all(
      Array.from({ length: 30 }, () => login(`${newId()}@example.com`, "guess", address())),
    );
    const checked = burst.filter((a) => a.status === 401);
    const busy = burst.filter((a) => a.status === 503);
    expect(checked.length + busy.length).toBe(burst.length);
    // The 30 arrive within about one scrypt: 8 are taken (2 running, 6 waiting), give or take a few
    // that finished meanwhile; the others are refused.
    expect(busy.length).toBeGreaterThanOrEqual(30 - (CONCURRENCY + QUEUE) - 4);
    for (const b of busy) {
      expect(b.code).toBe("PASSWORD_CHECKS_BUSY");
      expect(Number(b.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(b.body.retryAfterSeconds).toBe(Number(b.retryAfter));
    }
    // Each unknown email that was taken cost one scrypt, and each refused one none.
    expect((await hashes()) - before).toBe(checked.length);
    expect((await metric("wf_console_logins_total", { outcome: "busy" })) - busyBefore).toBe(busy.length);
  });
});
