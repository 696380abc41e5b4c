export {
  subjects,
  streamNames,
  consumerNames,
  executorQueues,
  approvalQueues,
  timerQueues,
  triggerQueues,
  toToken,
  type ExecutorQueue,
  type WorkQueue,
  type Subjects,
} from "./subjects";
export { ensureStreams, isNotFound, DUPLICATE_WINDOW_MS, type StreamOptions } from "./streams";
export { ensureConsumer } from "./consumers";
export { LaneShares } from "./lane-shares";
export { consumeLanes, type LaneQueuesOptions } from "./lane-queues";
export { connectNats } from "./connect";
export { natsTargetFromEnv, type NatsTarget } from "./credentials";
export { inboxPrefix, SERVICE_USERS, type ServiceUser } from "./permissions";
export { renderAuthConf, passwordVariable, ADMIN_USER } from "./auth-conf";
export {
  jetStreamTimers,
  fireTimer,
  serverHasSchedules,
  TIMER_DUE_HEADER,
  TimerMessage,
  type Timers,
  type TimerMode,
  type TimerSpec,
} from "./timers";
export {
  consumeCommands,
  command,
  retryDelayMs,
  type Command,
  type CommandConsumer,
  type CommandConsumerOptions,
  type CommandDropped,
  type ConcurrencyBound,
  type Handled,
} from "./command-consumer";
export { streamPlacement, placementConfig, reconcileStream, ONE_REPLICA, type StreamPlacement } from "./placement";
export { serverHasCompression, type StoreCompression } from "./compression";
export { clusterCasWarning, serverAtLeast } from "./server-version";
export { openKvBucket, openObjectBucket, type KvBucketSpec } from "./buckets";
export { whileStarting } from "./while-starting";
export { isTransient, retryTransient, TRANSIENT_RETRY_MS } from "./transient";
export { commandSeq, OrphanRescue, ORPHAN_GRACE_MS, ORPHAN_OF_HEADER } from "./orphans";
export { answerHolds, holderAlive } from "./holders";
export { queuedCommand } from "./queued-commands";
export { definitionRef, definitionsBucket, startDefinition, StoredDefinitions } from "./stored-definitions";
export { definitionsTtlMs } from "./definition-keeping";
export { LatestReports } from "./latest-reports";
export {
  askedLane,
  LaneBacklog,
  followLaneBacklog,
  reportLaneBacklog,
  LANE_BACKLOG_REPORT_MS,
  LANE_MARGIN,
  newIdInLane,
  type LaneChoice,
} from "./lane-backlog";
