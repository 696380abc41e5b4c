export type {
  Artifact,
  CodeLanguage,
  CodeRequest,
  CodeResult,
  CodeRunner,
  InteractiveProcess,
  Isolation,
  LogListener,
  SandboxLimits,
} from "./types";
export { DEFAULT_LIMITS, UnsupportedLanguageError } from "./types";
export type { CodeRunnerOptions } from "./runner";
export { createCodeRunner } from "./runner";
export { Sandbox } from "./sandbox";
export { serveConnection } from "./sandbox-server";
