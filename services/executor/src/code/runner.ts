import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { createBashRunner } from "./bash";
import type { BaseEnv } from "./env";
import { JsRunnerClient } from "./js-runner-client";
import { createPythonRunner, resolvePython } from "./python";
import type { CodeLanguage, CodeRunner, LanguageRunner } from "./types";
import { UnsupportedLanguageError } from "./types";

const DEFAULT_JS_MEMORY_LIMIT_MB = 128;

/**
 * Starts the code runners: the JavaScript runner process and the Python zygote are started now,
 * so that the first step does not wait for them. Everything a run writes lives under one private
 * directory inside `tmpRoot`, removed by close().
 */
export async function createCodeRunner(opts: { tmpRoot?: string; jsMemoryLimitMb?: number } = {}): Promise<CodeRunner> {
  // Absolute: the Python zygote's socket path is used from another cwd.
  const root = await mkdtemp(join(resolve(opts.tmpRoot ?? tmpdir()), "wf-code-"));
  const js = new JsRunnerClient({ cwd: root, memoryLimitMb: opts.jsMemoryLimitMb ?? DEFAULT_JS_MEMORY_LIMIT_MB });
  const [python] = await Promise.all([
    resolvePython().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
    js.start().catch(() => undefined), // a runner that cannot start fails each JavaScript run with the reason
  ]);
  const ctx = { tmpRoot: root, baseEnv: baseEnv(python) };
  const runners: Partial<Record<CodeLanguage, LanguageRunner>> = {
    javascript: js,
    typescript: js,
    python: createPythonRunner(ctx, python),
    bash: createBashRunner(ctx),
  };
  let closed = false;

  return {
    async run(req, signal) {
      if (closed) throw new Error("the code runner is closed");
      const runner = runners[req.language];
      if (!runner) throw new UnsupportedLanguageError(req.language);
      const started = performance.now();
      const result = await runner.run(req, signal);
      return { ...result, durationMs: Math.round((performance.now() - started) * 100) / 100 };
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...new Set(Object.values(runners))].map((runner) => runner.close()));
      await rm(root, { recursive: true, force: true, maxRetries: 2 });
    },
  };
}

/**
 * PATH as the service has it, with the real Python first: `python3` in a Bash step must not hit a
 * version-manager shim, which would look for its configuration under the step's private HOME.
 */
function baseEnv(python: string | Error): BaseEnv {
  const path = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  return {
    PATH: typeof python === "string" ? `${dirname(python)}${delimiter}${path}` : path,
    LANG: process.env.LANG ?? "C.UTF-8",
  };
}
