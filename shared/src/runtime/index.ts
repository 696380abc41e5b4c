export { openPlatform, type Platform } from "./platform";
export { resolveNats, type ResolvedNats } from "./resolve-nats";
export { embeddedNatsFiles, recordedNats } from "./embedded-nats";
export { runUntilSignal } from "./run-until-signal";
export { niceThisThread, scheduleThisThread, type ThreadPolicy } from "./thread-scheduling";
