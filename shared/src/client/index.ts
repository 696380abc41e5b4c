export { startExecution, cancelExecution, type StartRequest } from "./commands";
export { tailEvents, type TailOptions } from "./tail";
