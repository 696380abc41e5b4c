import type { BaseEnv } from "./env";
import { codeStepEnv } from "./env";
import { processResult } from "./output";
import type { RunDir } from "./run-dir";
import { createRunDir, removeRunDir } from "./run-dir";
import type { StepProcess } from "./supervise";
import { supervise } from "./supervise";
import type { CodeRequest, RunResult } from "./types";

/** What every process-based language shares: where run directories go and the base environment. */
export interface ProcessStepContext {
  tmpRoot: string;
  baseEnv: BaseEnv;
}

export type StartProcess = (dir: RunDir, env: Record<string, string>) => StepProcess;

/**
 * The life of a process-based step: a private run directory, a clean environment, the process
 * started by `start` and supervised to its end, its stdio turned into a result, the directory
 * removed. Only how the process starts differs between languages. Each language runner owns one
 * of these, so that closing it kills its processes still running.
 */
export class ProcessSteps {
  private readonly running = new Set<StepProcess>();

  constructor(private readonly ctx: ProcessStepContext) {}

  async run(req: CodeRequest, signal: AbortSignal | undefined, start: StartProcess): Promise<RunResult> {
    if (signal?.aborted) return { ok: false, error: "aborted", logs: [], timedOut: false };
    const dir = await createRunDir(this.ctx.tmpRoot);
    try {
      const env = codeStepEnv(req, { home: dir.path, artifacts: dir.artifacts }, this.ctx.baseEnv);
      const proc = start(dir, env);
      this.running.add(proc);
      try {
        return processResult(await supervise(proc, { timeoutMs: req.timeoutMs, signal }), req.timeoutMs);
      } finally {
        this.running.delete(proc);
      }
    } finally {
      await removeRunDir(dir);
    }
  }

  killAll(): void {
    for (const proc of this.running) proc.killGroup();
  }
}
