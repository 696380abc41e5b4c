import { Gauge } from "@wf/shared/metrics";

/**
 * The executor's limit on executions at once: WF_EXEC_CONCURRENCY, or what it takes (WF_EXEC_YIELD_CONCURRENCY and up) while it yields to
 * triggers.
 */
export const executorConcurrency = new Gauge({
  name: "wf_executor_concurrency_limit",
  help: "Executions the executor takes at once now: WF_EXEC_CONCURRENCY, or while its work queue grows fast (triggers first), from WF_EXEC_YIELD_CONCURRENCY up to what keeps WF_EXEC_YIELD_DRAIN_SHARE of its drain rate.",
  registers: [],
});
