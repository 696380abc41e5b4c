import type { RetryPolicy } from "@wf/shared/workflow";

/** Delay before attempt `attempt + 1`, after `attempt` failed attempts (seconds in, ms out). */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const initial = (policy.initial_delay ?? 1) * 1000;
  const max = (policy.max_delay ?? 60) * 1000;
  const raw =
    policy.backoff === "fixed"
      ? initial
      : policy.backoff === "linear"
        ? initial * attempt
        : initial * 2 ** (attempt - 1);
  return Math.min(raw, max);
}
