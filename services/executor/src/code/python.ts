import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { ProcessStepContext } from "./process-step";
import { ProcessSteps } from "./process-step";
import { PythonZygote } from "./python-zygote";
import type { LanguageRunner, RunResult } from "./types";

/**
 * The real interpreter behind `python3`, asked once: on this kind of machine `python3` is often a
 * version-manager shim (pyenv) that costs more than the interpreter itself on every call.
 */
export async function resolvePython(): Promise<string> {
  const { stdout } = await promisify(execFile)("python3", ["-c", "import sys; print(sys.executable)"], { timeout: 10_000 });
  const executable = stdout.trim();
  if (!executable) throw new Error("python3 did not report its executable");
  return executable;
}

/**
 * Python steps run in children forked by a zygote (see python-zygote.py): a plain `python3 -I -c`
 * spawn pays interpreter start-up and the `site` imports on every step (~50 ms end to end on the
 * development VM), a step forked from the zygote ~5 ms. A zygote that dies fails its runs in
 * flight and is started again by the next run.
 */
export function createPythonRunner(ctx: ProcessStepContext, python: string | Error): LanguageRunner {
  const steps = new ProcessSteps(ctx);
  let zygote: Promise<PythonZygote> | undefined;

  const liveZygote = async (python: string): Promise<PythonZygote> => {
    const current = zygote;
    if (current) {
      const z = await current.catch(() => undefined);
      if (z?.alive) return z;
      // Another run may have started a new one meanwhile.
      if (zygote !== current) return liveZygote(python);
    }
    zygote = PythonZygote.start({ python, tmpRoot: ctx.tmpRoot, baseEnv: ctx.baseEnv });
    return zygote;
  };
  // Started now so that the first step does not wait for it; a failure is reported by that step.
  if (typeof python === "string") liveZygote(python).catch(() => undefined);

  return {
    async run(req, signal) {
      if (python instanceof Error) return unavailable(`python3 is not available: ${python.message}`);
      let z: PythonZygote;
      try {
        z = await liveZygote(python);
      } catch (err) {
        return unavailable(err instanceof Error ? err.message : String(err));
      }
      return steps.run(req, signal, (dir, env) => z.fork(dir, { code: req.code ?? "", env }));
    },
    async close() {
      steps.killAll();
      (await zygote?.catch(() => undefined))?.kill();
    },
  };
}

function unavailable(error: string): RunResult {
  return { ok: false, error, logs: [], timedOut: false };
}
