export { StartCommand, ResumeCommand, CancelCommand, FailCommand, ApprovalExpireCommand } from "./commands";
