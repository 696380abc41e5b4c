import { createHash } from "node:crypto";
import { Lru } from "@wf/shared/pools";
import { addressGroup } from "./address-group";

/**
 * Budgets kept at most: past it the least recently used is dropped. About 150 bytes each; a new
 * one needs an attempt whose password is checked, so churning them out takes an attacker 100,000
 * scrypts (hours at WF_PASSWORD_HASH_CONCURRENCY's pace).
 */
const MAX_BUDGETS = 100_000;

export interface LoginBudgets {
  /** Failed logins for one email from one client address in a window. */
  perAccount: number;
  /** Failed logins from one client address, for any emails, in a window. */
  perAddress: number;
  windowMs: number;
}

/** One budget's window: it started at its first attempt; attempts in flight count against it. */
interface Usage {
  start: number;
  failures: number;
  pending: number;
}

export type LoginOutcome = "failed" | "succeeded" | "unchecked";

export interface LoginAttempt {
  /**
   * The password check's fairness lanes (fair-gate.ts), broadest first: the address, the email, the email at the
   * address.
   */
  lanes: readonly [address: string, email: string, account: string];
  /**
   * Counts the attempt's outcome; `unchecked` (no answer about the password) counts nothing. Only the first call
   * counts.
   */
  settle(outcome: LoginOutcome): void;
}

export type Admission = { admitted: true; attempt: LoginAttempt } | { admitted: false; retryAfterSeconds: number };

/**
 * Failed console logins of one edge process, in memory, per email from one client address and
 * per address: past either budget a login is refused before its password is checked (no scrypt).
 * Keyed by the address too, so guessing from elsewhere never locks the owner out; unknown emails
 * count as known ones (docs/webhooks.md#login-throttling).
 */
export class LoginThrottle {
  readonly #usage = new Lru<string, Usage>(MAX_BUDGETS);

  constructor(private readonly budgets: LoginBudgets) {}

  admit(email: string, ip: string, now: number): Admission {
    const address = addressGroup(ip);
    const account = digest(`${email}\n${address}`);
    const budgets = [
      { key: account, limit: this.budgets.perAccount },
      { key: address, limit: this.budgets.perAddress },
    ];
    let waitMs = 0;
    for (const { key, limit } of budgets) {
      const usage = this.#current(key, now);
      if (usage && usage.failures + usage.pending >= limit)
        waitMs = Math.max(waitMs, usage.start + this.budgets.windowMs - now);
    }
    if (waitMs > 0) return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };

    const [forAccount, forAddress] = budgets.map(({ key }) => this.#reserve(key, now)) as [Usage, Usage];
    let settled = false;
    return {
      admitted: true,
      attempt: {
        lanes: [address, digest(email), account],
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          forAccount.pending -= 1;
          forAddress.pending -= 1;
          if (outcome === "failed") {
            forAccount.failures += 1;
            forAddress.failures += 1;
          } else if (outcome === "succeeded") forAccount.failures = 0;
          this.#dropIfUnused(account, forAccount);
          this.#dropIfUnused(address, forAddress);
        },
      },
    };
  }

  /** A key's usage in the window that holds `now` (a new window once the last one ended), marked as just used. */
  #current(key: string, now: number): Usage | undefined {
    const usage = this.#usage.get(key);
    if (usage === undefined) return undefined;
    if (usage.start + this.budgets.windowMs <= now) {
      usage.start = now;
      usage.failures = 0;
    }
    return usage;
  }

  #reserve(key: string, now: number): Usage {
    let usage = this.#current(key, now);
    if (usage === undefined) {
      this.#usage.set(key, (usage = { start: now, failures: 0, pending: 0 }));
    }
    usage.pending += 1;
    return usage;
  }

  /** Usage with nothing counted goes, so attempts refused before their check leave nothing behind. */
  #dropIfUnused(key: string, usage: Usage): void {
    if (usage.failures === 0 && usage.pending === 0 && this.#usage.get(key) === usage) this.#usage.delete(key);
  }
}

/** Digests (never an address: no `.` nor `:`) stand for emails, which are up to 320 characters and need not be kept. */
function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}
