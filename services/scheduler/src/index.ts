export { startScheduler } from "./service";
export { scheduleExecutionId } from "./execution-ids";
export { schedulerMetrics } from "./timer-metrics";
