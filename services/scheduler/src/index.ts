export { startScheduler } from "./service";
export { scheduleExecutionId } from "./execution-ids";
export { schedulerMetrics } from "./timer-metrics";
export { startQueued, startStaleRepair, STALE_AFTER_MS } from "./stale-executions";
export { startRetention } from "./retention";
export { startStrandedSweep } from "./stranded-executions";
export { StartBudget } from "./start-budget";
export { chainTimer } from "./trigger-timers";
