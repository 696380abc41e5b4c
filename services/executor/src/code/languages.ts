import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import type { ZygoteCommand } from "./zygote";
import type { CodeRequest } from "./types";

type ExecLanguage = "bash" | "ruby" | "lua";

/** The interpreters exec'd for a step: the first name found on PATH, and the Debian package that has it. */
const INTERPRETERS: Record<
  ExecLanguage,
  { names: string[]; apt: string; argv: (path: string, code: string) => string[] }
> = {
  // No profile or rc file: the step sees exactly the environment it is given.
  bash: { names: ["bash"], apt: "bash", argv: (path, code) => [path, "--noprofile", "--norc", "-c", code] },
  ruby: { names: ["ruby"], apt: "ruby", argv: (path, code) => [path, "-e", code] },
  lua: { names: ["lua5.4", "lua"], apt: "lua5.4", argv: (path, code) => [path, "-e", code] },
};

export function notInstalled(name: string, apt: string): string {
  return `${name} is not installed on the sandbox runner: apt-get install ${apt}`;
}

/** The Python that runs the zygotes (and Python steps), and the directories its installation spans. */
export const PythonSchema = z.object({
  executable: z.string().startsWith("/"),
  /** sys.prefix and sys.base_prefix (a virtual environment and the installation behind it). */
  prefixes: z.array(z.string().startsWith("/")),
});
export type Python = z.infer<typeof PythonSchema>;

/**
 * The real interpreter behind `python3`, asked once: on this kind of machine `python3` is often a
 * version-manager shim (pyenv) that costs more than the interpreter itself on every call.
 */
export async function resolvePython(env?: Record<string, string>, cwd?: string): Promise<Python> {
  const script = "import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix]))";
  const { stdout } = await promisify(execFile)("python3", ["-c", script], { timeout: 10_000, env, cwd });
  const [executable, ...prefixes] = JSON.parse(stdout) as string[];
  if (!executable) throw new Error("python3 did not report its executable");
  return { executable, prefixes: [...new Set(prefixes)] };
}

/** The paths of the interpreters found on `path`, looked up once when the runner starts. */
export function findInterpreters(path: string): Partial<Record<ExecLanguage, string>> {
  const found: Partial<Record<ExecLanguage, string>> = {};
  for (const [language, { names }] of Object.entries(INTERPRETERS) as Array<
    [ExecLanguage, (typeof INTERPRETERS)[ExecLanguage]]
  >) {
    const executable = names.map((name) => findExecutable(name, path)).find(Boolean);
    if (executable) found[language] = executable;
  }
  return found;
}

function findExecutable(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * What the zygote runs for a step, or why it cannot run. Code goes in an argument (`-c`, `-e`)
 * rather than a script file: no file to write and remove per step, at the price of the kernel's
 * 128 KiB per argument (such a step fails with E2BIG).
 */
export function commandFor(
  req: CodeRequest,
  interpreters: Partial<Record<ExecLanguage, string>>,
): ZygoteCommand | { error: string } {
  switch (req.language) {
    case "python":
      return { code: req.code ?? "" };
    case "cli": {
      const argv = req.command;
      if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string")) {
        return { error: "a cli step needs `command`, a non-empty list of strings" };
      }
      return { argv };
    }
    case "bash":
    case "ruby":
    case "lua": {
      const spec = INTERPRETERS[req.language];
      const path = interpreters[req.language];
      return path ? { argv: spec.argv(path, req.code ?? "") } : { error: notInstalled(spec.names[0]!, spec.apt) };
    }
    default:
      return { error: `${req.language} steps do not run in a process` };
  }
}
