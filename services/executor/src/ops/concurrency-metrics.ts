import { Gauge } from "@wf/shared/metrics";

/**
 * The executor's limit on executions at once: WF_EXEC_CONCURRENCY, or WF_EXEC_YIELD_CONCURRENCY while it yields to
 * triggers.
 */
export const executorConcurrency = new Gauge({
  name: "wf_executor_concurrency_limit",
  help: "Executions the executor takes at once now: WF_EXEC_CONCURRENCY, or WF_EXEC_YIELD_CONCURRENCY while its work queue grows fast (triggers first).",
  registers: [],
});
