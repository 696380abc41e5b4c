import { ArtifactLimitError, collectArtifacts } from "./artifacts";
import type { StepCgroup, StepCgroups } from "./cgroup";
import type { BaseEnv } from "./env";
import { codeStepEnv } from "./env";
import { LogLines, processResult } from "./output";
import { createRunDir, removeRunDir } from "./run-dir";
import type { StepProcess } from "./supervise";
import { supervise } from "./supervise";
import type { CodeRequest, LogListener, RunResult, SandboxLimits } from "./types";
import type { ProcessLimits, ZygoteRequest } from "./zygote";

/** What every process-based step shares: where run directories go, the base environment, the cgroups. */
interface ProcessStepContext {
  tmpRoot: string;
  baseEnv: BaseEnv;
  cgroups: StepCgroups | undefined;
}

type StartProcess = (request: ZygoteRequest) => StepProcess;

/**
 * The life of a process-based step: a private run directory, a clean environment, a cgroup, the
 * process started by `start` with its limits and supervised to its end, its stdio turned into a
 * result, its artifacts collected, the directory and cgroup removed. Closing kills what still runs.
 */
export class ProcessSteps {
  private readonly running = new Set<StepProcess>();
  private nextId = 1;

  constructor(private readonly ctx: ProcessStepContext) {}

  async run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog: LogListener | undefined, start: StartProcess): Promise<RunResult> {
    if (signal.aborted) return { ok: false, error: "aborted", logs: [], artifacts: [], timedOut: false };
    const dir = await createRunDir(this.ctx.tmpRoot);
    let cgroup: StepCgroup | undefined;
    try {
      const env = codeStepEnv(req, { home: dir.path, artifacts: dir.artifacts }, this.ctx.baseEnv);
      cgroup = this.ctx.cgroups?.open(this.nextId++, limits.processes);
      const proc = withCgroup(start({ cwd: dir.path, env, limits: processLimits(req, limits), cgroup: cgroup?.path }), cgroup);
      this.running.add(proc);
      try {
        const logs = onLog && new LogLines(onLog);
        const outcome = await supervise(proc, {
          timeoutMs: req.timeoutMs,
          signal,
          outputBytes: limits.outputBytes,
          onLine: logs && ((line) => logs.push(line)),
        });
        const result = processResult(outcome, req.timeoutMs);
        return outcome.end.kind === "aborted" ? result : await withArtifacts(result, dir.artifacts, limits);
      } finally {
        this.running.delete(proc);
      }
    } finally {
      // After the result, not before it: the processes are dead already, and removing a
      // directory tree costs a millisecond or more.
      void Promise.all([cgroup?.remove(), removeRunDir(dir)]).catch(() => undefined);
    }
  }

  killAll(): void {
    for (const proc of this.running) proc.kill();
  }
}

function processLimits(req: CodeRequest, limits: SandboxLimits): ProcessLimits {
  return {
    // A backstop per process: the timeout stops the step first, unless it uses several cores.
    cpuSeconds: Math.ceil(req.timeoutMs / 1000) + 1,
    // RLIMIT_DATA rather than RLIMIT_AS: it counts memory a process can write, not address space
    // merely reserved, which runtimes such as V8 or Go reserve by the gigabyte.
    dataBytes: limits.memoryMb * 1024 * 1024,
    openFiles: limits.openFiles,
    processes: limits.processes,
    // One byte over the per-file artifact limit, so that an artifact over it is found and named
    // when the artifacts are collected, and no file the step writes can grow without bound.
    fileBytes: limits.artifactFileBytes + 1,
  };
}

function withCgroup(proc: StepProcess, cgroup: StepCgroup | undefined): StepProcess {
  if (!cgroup) return proc;
  return {
    stdout: proc.stdout,
    stderr: proc.stderr,
    exited: proc.exited,
    kill: () => {
      proc.kill();
      cgroup.kill();
    },
    limitReached: () => cgroup.limitReached(),
  };
}

/** The artifacts the step wrote; a limit passed fails the step, naming the limit. */
async function withArtifacts(result: RunResult, dir: string, limits: SandboxLimits): Promise<RunResult> {
  try {
    return { ...result, artifacts: await collectArtifacts(dir, limits) };
  } catch (err) {
    const message = err instanceof ArtifactLimitError ? err.message : `artifacts could not be read: ${String(err)}`;
    if (result.ok) return { ok: false, error: message, logs: result.logs, artifacts: [], timedOut: false };
    return { ...result, error: `${result.error}; ${message}` };
  }
}
