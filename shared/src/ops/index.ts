export { openOps, type OpsListener } from "./open-ops";
export { localSource, type LocalSourceOptions, type OpsSource } from "./ops-source";
export { platformHealth, PlatformHealth } from "./platform-health";
export { OpsAsk, PeerAsker, replyTo, type OpsReply } from "./peer-protocol";
export { mergeReports, readyAnswer, reportOf, OK, ReadyReport, type ReadyAnswer } from "./ready-report";
export { isStopping, markStopping } from "./stopping";
