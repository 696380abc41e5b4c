export {
  StartCommand,
  ResumeCommand,
  CancelCommand,
  FailCommand,
  ApprovalExpireCommand,
  DebugCommand,
  DebugBreakpointsCommand,
  DebugIdleCommand,
  DebugMessage,
} from "./commands";
export { SecretsRequest, SecretsReply } from "./secrets";
export { EdgeLatency } from "./edge-latency";
export { LaneBacklogReport } from "./lane-backlog";
