import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { ChainLanguage } from "./workflows";
import { NAIVE_SNIPPETS } from "./workflows";

const run = promisify(execFile);
const SPAWN_TIMEOUT_MS = 10_000;

/**
 * The real interpreter behind `python3` (often a pyenv shim here, which costs more than Python
 * itself): the runtime resolves it the same way, so the naive runner gets the same advantage.
 */
export async function resolvePythonExecutable(): Promise<string> {
  const { stdout } = await run("python3", ["-c", "import sys; print(sys.executable)"], { timeout: SPAWN_TIMEOUT_MS });
  return stdout.trim();
}

/**
 * (d) What a naive runner costs: `steps` sequential spawns of a fresh interpreter (`node -e`,
 * `python3 -c`) running the same step body, each fed the previous output. No durable state,
 * no isolation beyond the process. Returns milliseconds; throws if the chain's result is wrong.
 */
export async function naiveChainMs(language: ChainLanguage, steps: number, python: string): Promise<number> {
  const [file, flag] = language === "javascript" ? [process.execPath, "-e"] : [python, "-c"];
  const t0 = performance.now();
  let prev = "0";
  for (let i = 0; i < steps; i++) {
    const { stdout } = await run(file, [flag, NAIVE_SNIPPETS[language], prev], {
      timeout: SPAWN_TIMEOUT_MS,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    prev = stdout.trim();
  }
  const ms = performance.now() - t0;
  if (Number(prev) !== steps) throw new Error(`naive ${language} chain ended with ${prev}, expected ${steps}`);
  return ms;
}
