export { startExecutor, type RunningService } from "./service";
export { executorMetrics } from "./ops/executor-metrics";
