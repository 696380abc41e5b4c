import { collectDefaultMetrics, Registry, type Metric } from "prom-client";
import { consumerMetrics } from "../metrics/consumer-metrics";
import type { MetricsJson } from "../metrics/metrics-json";
import type { PlatformHealth } from "./platform-health";
import { reportOf, type ReadyReport } from "./ready-report";

/**
 * One part of a process that the ops listener answers for: the process's own registry and
 * platform, or a thread or worker process of it, asked over its channel.
 */
export interface OpsSource {
  /** What its checks are called in the merged report (`executor thread: nats`); null for the process's own. */
  readonly name: string | null;
  ready(): Promise<ReadyReport>;
  /** Its registries' metrics (a part made of several processes has one each), merged by the listener. */
  metrics(): Promise<MetricsJson[]>;
}

export interface LocalSourceOptions {
  /** The services' metrics this thread registers. */
  metrics: Metric[];
  /**
   * prom-client's process and Node.js metrics. Once per process: CPU, memory and file
   * descriptors are the process's whatever thread reads them.
   */
  processMetrics: boolean;
  /** The platform whose readiness this is, with the gauges of the consumers it watches; none: ready while alive. */
  health?: PlatformHealth;
}

/** This thread's own metrics and readiness. */
export function localSource(opts: LocalSourceOptions): OpsSource {
  const registry = new Registry();
  for (const metric of [...(opts.health ? consumerMetrics : []), ...opts.metrics]) registry.registerMetric(metric);
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const health = opts.health;
  return {
    name: null,
    ready: () => (health ? health.report() : Promise.resolve(reportOf({}))),
    async metrics() {
      await health?.refresh();
      return [await registry.getMetricsAsJSON()];
    },
  };
}
