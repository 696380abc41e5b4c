import type { ChildProcessByStdio } from "node:child_process";
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { PassThrough } from "node:stream";
import type { ExitStatus, StepProcess } from "./supervise";

/**
 * Spawns a step process as the leader of its own process group (`detached` makes it call setsid),
 * so that killing `-pid` takes its children with it. stdin is /dev/null: steps are not interactive.
 */
export function spawnStepProcess(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): StepProcess {
  let child: ChildProcessByStdio<null, Readable, Readable>;
  try {
    child = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    // Some failures (E2BIG above all) are thrown rather than emitted.
    return notStarted(startError(command, err));
  }
  const exited = new Promise<ExitStatus>((resolve, reject) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (err) => reject(startError(command, err)));
  });
  return { stdout: child.stdout, stderr: child.stderr, exited, killGroup: () => killProcessGroup(child.pid) };
}

export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the whole group is gone already.
  }
}

function startError(command: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const hint = code === "E2BIG" ? " (the code, or a WF_ variable, exceeds the kernel's 128 KiB per argument)" : "";
  return new Error(`failed to start ${command}: ${err instanceof Error ? err.message : String(err)}${hint}`);
}

function notStarted(err: Error): StepProcess {
  const ended = (): PassThrough => new PassThrough().end();
  return { stdout: ended(), stderr: ended(), exited: Promise.reject(err), killGroup: () => undefined };
}
