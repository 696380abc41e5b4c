import { executorConcurrency } from "./concurrency-metrics";
import { executionMetrics } from "./execution-metrics";
import { llmMetrics } from "./llm-metrics";
import { sandboxMetrics } from "./sandbox-metrics";

/** The executor's own metrics (docs/metrics.md). */
export const executorMetrics = [...executionMetrics, executorConcurrency, ...sandboxMetrics, ...llmMetrics];
