export { startExecution, cancelExecution, type CommandPublisher, type StartRequest } from "./commands";
export { tailEvents, type TailOptions } from "./tail";
export { debugCommandOf, sendDebugCommand, sendBreakpoints } from "./debug";
