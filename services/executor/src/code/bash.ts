import type { ProcessStepContext } from "./process-step";
import { ProcessSteps } from "./process-step";
import { spawnStepProcess } from "./spawn-process";
import type { LanguageRunner } from "./types";

/**
 * Bash steps: `bash -c code`, reading no profile or rc file, so that the step sees exactly the
 * environment it is given. `-c` rather than a script file saves a file write and removal per
 * step; it caps the code at the kernel's 128 KiB per argument (the step then fails with E2BIG).
 */
export function createBashRunner(ctx: ProcessStepContext): LanguageRunner {
  const steps = new ProcessSteps(ctx);
  return {
    run: (req, signal) =>
      steps.run(req, signal, (dir, env) =>
        spawnStepProcess("bash", ["--noprofile", "--norc", "-c", req.code ?? ""], { cwd: dir.path, env }),
      ),
    close: async () => steps.killAll(),
  };
}
