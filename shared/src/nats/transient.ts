import { NoRespondersError, TimeoutError } from "@nats-io/nats-core";

/**
 * Whether a JetStream request failed only for now: it timed out, found no responders, or the
 * stream had no leader (a cluster electing one after a member went down, a server starting).
 * Such a request is worth sending again; its effect may have happened already, so only
 * idempotent requests (or compare-and-set writes checked after) are.
 */
export function isTransient(err: unknown, depth = 0): boolean {
  if (depth > 3 || !(err instanceof Error)) return false;
  return (
    err instanceof NoRespondersError ||
    err instanceof TimeoutError ||
    /no responders|jetstream is not enabled|timeout|jetstream cluster not available|no suitable peers|stream is offline|temporarily unavailable|no leader/i.test(
      err.message,
    ) ||
    isTransient(err.cause, depth + 1)
  );
}

/** How long work already under way keeps trying a request through a transient failure. */
export const TRANSIENT_RETRY_MS = 20_000;

/**
 * Runs `body` again while it fails transiently, for up to `budgetMs`, backing off from 50 ms to
 * 1 s: a cluster moving a stream's leader answers again within seconds. Other errors, and the
 * last transient one, are thrown.
 */
export function retryTransient<T>(body: () => Promise<T>, budgetMs = TRANSIENT_RETRY_MS): Promise<T> {
  return retryWhile(body, isTransient, budgetMs);
}

/**
 * Runs `body` again while it fails with an error `passing` accepts, for up to `budgetMs`, with retryTransient's
 * backoff.
 */
export async function retryWhile<T>(
  body: () => Promise<T>,
  passing: (err: unknown) => boolean,
  budgetMs: number,
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await body();
    } catch (err) {
      if (Date.now() >= deadline || !passing(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** attempt, 1_000)));
    }
  }
}
