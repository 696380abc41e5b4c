import { retryTransient } from "./transient";

/** How long a process keeps trying to open what it needs before it gives up and exits. */
const STARTING_MS = 60_000;

/**
 * Runs `body` again while JetStream is not ready to answer it: replicas starting at once create
 * streams and buckets together, a write may reach a server before the bucket's stream listens
 * (no responders, "jetstream is not enabled"), and a cluster that lost a member answers late
 * while its streams elect new leaders. `body` must be idempotent. Other errors end it at once.
 */
export function whileStarting<T>(body: () => Promise<T>, budgetMs = STARTING_MS): Promise<T> {
  return retryTransient(body, budgetMs);
}
