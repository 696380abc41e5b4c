export { WindowCounters, type WindowCounts } from "./window-counters";
export { counterKey, epochMinute, secondsUntilReset } from "./windows";
export { OwnerMinuteBudget } from "./owner-minute-budget";
