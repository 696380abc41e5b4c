import { Lru } from "@wf/shared/pools";
import { addressGroup } from "../console/address-group";

/** Each budget counts the failures of one minute from its first one. */
const WINDOW_MS = 60_000;
/**
 * Budgets kept at most: past it the least recently used is dropped. A new one costs its sender a
 * body read and an HMAC, so churning them out takes 100,000 of those.
 */
const MAX_BUDGETS = 100_000;

interface Usage {
  start: number;
  failures: number;
}

/**
 * Signatures that did not match, per webhook and client address, in one edge process's memory: past the budget,
 * that address's HMAC triggers of that webhook are refused before their bodies are read until the window ends.
 * Only failures count, not triggers in flight: a sender with the secret never fails, however many it sends at once
 * (docs/webhooks.md#unauthenticated-floods).
 */
export class SignatureFailures {
  readonly #usage = new Lru<string, Usage>(MAX_BUDGETS);

  constructor(readonly perMinute: number) {}

  /** Seconds until the address may try again, or null when it may now. */
  retryAfterSeconds(webhookId: string, ip: string, now: number): number | null {
    // The common case, no failures anywhere, costs no address parsing.
    if (this.#usage.size === 0) return null;
    const key = budgetKey(webhookId, ip);
    const usage = this.#usage.get(key);
    if (usage === undefined) return null;
    const end = usage.start + WINDOW_MS;
    if (end <= now) {
      this.#usage.delete(key);
      return null;
    }
    return usage.failures >= this.perMinute ? Math.max(1, Math.ceil((end - now) / 1000)) : null;
  }

  fail(webhookId: string, ip: string, now: number): void {
    const key = budgetKey(webhookId, ip);
    const usage = this.#usage.get(key);
    if (usage === undefined || usage.start + WINDOW_MS <= now) this.#usage.set(key, { start: now, failures: 1 });
    else usage.failures += 1;
  }
}

function budgetKey(webhookId: string, ip: string): string {
  return `${webhookId} ${addressGroup(ip)}`;
}
