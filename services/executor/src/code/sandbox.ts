import { delimiter, dirname } from "node:path";
import type { BaseEnv } from "./env";
import type { IsolationPlan } from "./isolation";
import { planIsolation } from "./isolation";
import { JsSteps } from "./js-steps";
import { commandFor, findInterpreters, notInstalled, resolvePython } from "./languages";
import { ProcessSteps } from "./process-step";
import type { CodeRequest, Isolation, LogListener, RunResult, SandboxLimits } from "./types";
import { Zygote } from "./zygote";

/**
 * Everything that runs user code, inside a sandbox runner process (never the service's):
 * JavaScript and TypeScript in isolates, every other language in processes forked by a zygote
 * that runs inside the sandbox. Two zygotes where the machine has network namespaces, one
 * without network and one with it (for `network: true`), each started when first needed and
 * again after it died.
 */
export class Sandbox {
  private readonly js = new JsSteps();
  private readonly zygotes: { isolated: ZygoteSupply; networked: ZygoteSupply };

  private constructor(
    private readonly plan: IsolationPlan,
    private readonly python: string | Error,
    private readonly interpreters: ReturnType<typeof findInterpreters>,
    private readonly steps: ProcessSteps,
    tmpRoot: string,
    baseEnv: BaseEnv,
  ) {
    const supply = (network: boolean): ZygoteSupply =>
      new ZygoteSupply(() => {
        if (python instanceof Error) throw python;
        return Zygote.start({ python, tmpRoot, baseEnv, sandbox: plan.launcher(network) });
      });
    const isolated = supply(false);
    this.zygotes = { isolated, networked: plan.isolation.network === "namespace" ? supply(true) : isolated };
  }

  /** `tmpRoot` holds the run directories; `writable` are further paths steps may write to. */
  static async start(opts: { tmpRoot: string; writable: string[] }): Promise<Sandbox> {
    const path = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
    const [plan, python] = await Promise.all([
      planIsolation([...new Set([opts.tmpRoot, ...opts.writable])]),
      resolvePython().catch(() => new Error(`${notInstalled("python3", "python3")} (it starts the steps in every language but JavaScript)`)),
    ]);
    // The real Python first: `python3` in a step must not hit a version-manager shim, which
    // would look for its configuration under the step's private HOME.
    const baseEnv = { PATH: typeof python === "string" ? `${dirname(python)}${delimiter}${path}` : path, LANG: process.env.LANG ?? "C.UTF-8" };
    const steps = new ProcessSteps({ tmpRoot: opts.tmpRoot, baseEnv, cgroups: plan.cgroups });
    const sandbox = new Sandbox(plan, python, findInterpreters(path), steps, opts.tmpRoot, baseEnv);
    // Started and awaited now, so that neither the first step nor the service, busy with its
    // first steps by then, waits for it; a failure is reported by each step that needs it.
    await sandbox.zygotes.isolated.live().catch(() => undefined);
    return sandbox;
  }

  get isolation(): Isolation {
    return this.plan.isolation;
  }

  async run(req: CodeRequest, limits: SandboxLimits, signal: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    if (req.language === "javascript" || req.language === "typescript") return this.js.run(req, limits, signal, onLog);
    const command = commandFor(req, this.interpreters);
    if ("error" in command) return failed(command.error);
    let zygote: Zygote;
    try {
      zygote = await (req.network ? this.zygotes.networked : this.zygotes.isolated).live();
    } catch (err) {
      return failed(err instanceof Error ? err.message : String(err));
    }
    return this.steps.run(req, limits, signal, onLog, (request) => zygote.fork(command, request));
  }

  async close(): Promise<void> {
    this.steps.killAll();
    await Promise.all([this.zygotes.isolated.close(), this.zygotes.networked.close()]);
    this.js.close();
    await this.plan.cgroups?.close();
  }
}

/** One zygote, started on demand and again once it died; runs in flight when it dies fail with the reason. */
class ZygoteSupply {
  private current: Promise<Zygote> | undefined;

  constructor(private readonly start: () => Promise<Zygote>) {}

  async live(): Promise<Zygote> {
    const current = this.current;
    if (current) {
      const zygote = await current.catch(() => undefined);
      if (zygote?.alive) return zygote;
      // Another run may have started a new one meanwhile.
      if (this.current !== current) return this.live();
    }
    this.current = this.start();
    return this.current;
  }

  async close(): Promise<void> {
    (await this.current?.catch(() => undefined))?.kill();
  }
}

function failed(error: string): RunResult {
  return { ok: false, error, logs: [], artifacts: [], timedOut: false };
}
