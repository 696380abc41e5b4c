export { subjects, streamNames, consumerNames, toToken, type Subjects } from "./subjects";
export { ensureStreams, isNotFound, type StreamOptions } from "./streams";
export { ensureConsumer } from "./consumers";
export { connectNats } from "./connect";
export { jetStreamTimers, handleTimerMessage, TimerMessage, type Timers, type TimerSpec } from "./timers";
