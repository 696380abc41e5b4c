export { StartCommand, ResumeCommand, CancelCommand, ApprovalExpireCommand } from "./commands";
