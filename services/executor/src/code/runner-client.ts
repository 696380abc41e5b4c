import type { CodeRequest, InteractiveProcess, Isolation, LogListener, RunResult, SandboxLimits } from "./types";

/** What the executor runs code through: one runner's connection, or its connection and its JavaScript host's. */
export interface RunnerClient {
  readonly ready: Promise<Isolation>;
  /** Runs started and not finished: for choosing the least busy runner. */
  readonly busy: number;
  readonly alive: boolean;
  run(req: CodeRequest, limits: SandboxLimits, signal?: AbortSignal, onLog?: LogListener): Promise<RunResult>;
  open(
    req: CodeRequest,
    limits: SandboxLimits,
    onStdout: (chunk: string) => void,
  ): Omit<InteractiveProcess, "result"> & { result: Promise<RunResult> };
}
