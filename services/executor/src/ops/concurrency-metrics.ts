import { Gauge } from "@wf/shared/metrics";

/**
 * The executor's limit on executions at once: WF_EXEC_CONCURRENCY, or what it takes (WF_EXEC_YIELD_CONCURRENCY and up) while it yields to
 * triggers.
 */
export const executorConcurrency = new Gauge({
  name: "wf_executor_concurrency_limit",
  help: "Executions the executor takes at once now: WF_EXEC_CONCURRENCY, or while its work queue grows fast and an edge is slow (triggers first), from WF_EXEC_YIELD_CONCURRENCY up to what keeps WF_EXEC_YIELD_DRAIN_SHARE of its drain rate.",
  registers: [],
});

/** The slowest edge's trigger p99 the executor's yield judges (edge-latencies.ts), at its newest sample. */
export const edgeTriggerP99 = new Gauge({
  name: "wf_executor_edge_trigger_p99_seconds",
  help: "The slowest edge's 99th percentile of answers to triggers over its last half second, as the executor heard it at its newest sample of its work queue; 0 when no edge answers triggers. A yield starts only at WF_EXEC_YIELD_EDGE_P99_MS or over.",
  registers: [],
});
