export { subjects, streamNames, consumerNames, toToken, type Subjects } from "./subjects";
export { ensureStreams, isNotFound, type StreamOptions } from "./streams";
export { ensureConsumer } from "./consumers";
export { connectNats } from "./connect";
export { natsTargetFromEnv, type NatsTarget } from "./credentials";
export { inboxPrefix, SERVICE_USERS, type ServiceUser } from "./permissions";
export { renderAuthConf, passwordVariable, ADMIN_USER } from "./auth-conf";
export { jetStreamTimers, fireTimer, TimerMessage, type Timers, type TimerSpec } from "./timers";
export {
  consumeCommands,
  command,
  retryDelayMs,
  type Command,
  type CommandConsumer,
  type CommandConsumerOptions,
  type CommandDropped,
  type Handled,
} from "./command-consumer";
