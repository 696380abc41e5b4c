export { StartCommand, ResumeCommand, CancelCommand } from "./commands";
