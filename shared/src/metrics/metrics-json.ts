import type { Registry } from "prom-client";

/**
 * A registry's metrics as `getMetricsAsJSON` gives them: what threads and processes send their ops listener to merge.
 */
export type MetricsJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;
