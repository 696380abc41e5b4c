export { WindowCounters, type WindowCounts } from "./window-counters";
export { counterKey, epochMinute, secondsUntilReset } from "./windows";
