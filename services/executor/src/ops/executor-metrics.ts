import { edgeTriggerP99, executorConcurrency } from "./concurrency-metrics";
import { executionMetrics } from "./execution-metrics";
import { llmMetrics } from "./llm-metrics";
import { sandboxMetrics } from "./sandbox-metrics";

/** The executor's own metrics (docs/metrics.md). */
export const executorMetrics = [
  ...executionMetrics,
  executorConcurrency,
  edgeTriggerP99,
  ...sandboxMetrics,
  ...llmMetrics,
];
