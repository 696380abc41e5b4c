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
