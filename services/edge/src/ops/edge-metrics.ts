import { httpMetrics } from "./http-metrics";
import { loginMetrics } from "./login-metrics";

/** The edge's own metrics (docs/metrics.md). */
export const edgeMetrics = [...httpMetrics, ...loginMetrics];
