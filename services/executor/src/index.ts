export { startExecutor, type RunningService } from "./service";
export type { ExecutorActor } from "./actor/executor-actor";
export { executorMetrics } from "./ops/executor-metrics";
export { createCodeRunner, type CodeLanguage, type CodeRequest, type CodeRunner, type Isolation } from "./code/index";
