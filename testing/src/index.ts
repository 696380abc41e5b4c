export {
  natsServerBin,
  startNatsServer,
  serverAtLeast,
  type NatsServerHandle,
  type NatsServerOptions,
} from "./nats-server";
export { minuteWithRoom, waitFor, waitForProgress } from "./wait-for";
export { startCommandsIn } from "./start-commands";
export { processesWithArg, sleepers, sleepMarker } from "./sleepers";
export { testUser, testUserWithPassword } from "./users";
export { startNatsCluster, type NatsClusterHandle } from "./nats-cluster";
export { runnerBundles, TEST_BUILD_ENV } from "./test-build";
export { descendsFrom, procCmdline, procStatAt, procTable, type ProcStat } from "./proc-table";
