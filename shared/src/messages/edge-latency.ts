import { z } from "zod";

/**
 * `<ns>.edge.latency`, core NATS, twice a second from each edge process while it answers triggers (webhooks and API
 * starts): how slowly it answered them. The executors yield to triggers only while some edge is slow
 * (docs/operations.md#triggers-first-the-executors-yield).
 */
export const EdgeLatency = z.object({
  /** The edge process, made up as it starts: the executors keep each one's newest report. */
  edge: z.string().min(1).max(64),
  /** The 99th percentile of its trigger answers over the last half second, in milliseconds. */
  p99Ms: z.number().finite().nonnegative(),
  /** Triggers it answered in that half second. */
  triggers: z.number().int().positive(),
});
export type EdgeLatency = z.infer<typeof EdgeLatency>;
