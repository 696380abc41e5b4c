/**
 * The Prometheus client every service defines its metrics with (docs/metrics.md). Metrics are
 * made with `registers: []` where they are defined: a process registers only those of the
 * services it runs, in the registry of its ops listener (`@wf/shared/ops`).
 */
export {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type Metric,
} from "prom-client";
export { BoundedLabel } from "./bounded-label";
export { consumerMetrics, recordConsumerInfo } from "./consumer-metrics";
export type { MetricsJson } from "./metrics-json";
