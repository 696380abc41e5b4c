export { startScheduler } from "./service";
export { scheduleExecutionId } from "./execution-ids";
