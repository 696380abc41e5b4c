/**
 * Code-step overhead per language: the wall time of one light step run through the code runner
 * (createCodeRunner, as the executor runs it: isolates for JavaScript/TypeScript, a fork of the
 * sandboxed zygote for the rest), next to the bare cost of starting that language's interpreter
 * with child_process on the same machine in the same run. The step does (almost) nothing, so
 * its whole wall time is the overhead.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createCodeRunner, type CodeLanguage, type CodeRequest, type CodeRunner, type Isolation } from "@wf/executor";
import type { CodeOverheadSizes } from "./options";
import { round, summarize, type Summary } from "./stats";

const SPAWN_TIMEOUT_MS = 10_000;

/** The order of the table. */
export const OVERHEAD_LANGUAGES = [
  "javascript",
  "typescript",
  "python",
  "bash",
  "ruby",
  "lua",
  "cli",
] as const satisfies readonly CodeLanguage[];

/** What each language runs: the step through the runner, and the bare interpreter start it is compared with. */
const CASES: Record<
  CodeLanguage,
  {
    step: Pick<CodeRequest, "code" | "command">;
    shown: string;
    expected: unknown;
    bare: { names: string[]; args: string[]; shown: string };
  }
> = {
  javascript: {
    step: { code: "return 1" },
    shown: "return 1",
    expected: 1,
    bare: { names: ["node"], args: ["-e", ""], shown: "node -e ''" },
  },
  typescript: {
    step: { code: "const n: number = 1; return n;" },
    shown: "const n: number = 1; return n;",
    expected: 1,
    bare: { names: ["node"], args: ["-e", ""], shown: "node -e ''" },
  },
  python: {
    step: { code: "print(1)" },
    shown: "print(1)",
    expected: 1,
    bare: { names: ["python3"], args: ["-c", "pass"], shown: "python3 -c pass" },
  },
  bash: {
    step: { code: "echo 1" },
    shown: "echo 1",
    expected: 1,
    bare: { names: ["bash"], args: ["-c", "true"], shown: "bash -c true" },
  },
  ruby: {
    step: { code: "puts 1" },
    shown: "puts 1",
    expected: 1,
    bare: { names: ["ruby"], args: ["-e", ""], shown: "ruby -e ''" },
  },
  // The runtime runs lua5.4, else lua: the same lookup here.
  lua: {
    step: { code: "print(1)" },
    shown: "print(1)",
    expected: 1,
    bare: { names: ["lua5.4", "lua"], args: ["-e", ""], shown: "lua5.4 -e ''" },
  },
  cli: {
    step: { command: ["true"] },
    shown: 'command: ["true"]',
    expected: "",
    bare: { names: ["true"], args: [], shown: "true" },
  },
};

export interface LanguageOverhead {
  language: CodeLanguage;
  /** The step's code (or argv), as run. */
  step: string;
  /** The bare command, and the real binary spawned for it (symlinks resolved). */
  bareCommand: string;
  bareExecutable: string | null;
  /** Why the language was not measured (its interpreter is missing); null when it was. */
  skipped: string | null;
  /** Wall ms per step through the runner: the overhead, since the step itself does nothing. */
  oursMs: Summary | null;
  /** Wall ms per spawn of the bare command, to its exit. */
  bareMs: Summary | null;
  /** Medians: ours / bare (below 1: the step costs less than starting the interpreter). */
  ratio: number | null;
  /** Steps that failed or returned something else while timed; any makes the figures suspect. */
  failures: string[];
}

export interface CodeOverheadResult {
  sizes: CodeOverheadSizes;
  /** The runner's isolation() (network, filesystem, limits in force): it changes the cost. */
  isolation: Isolation;
  /**
   * `python3` as found on PATH, and the interpreter actually spawned (its sys.executable, as the runtime resolves it).
   */
  python: { onPath: string | null; executable: string | null; shim: boolean; shimMs: Summary | null };
  /** Every language asked for, in table order; skipped ones say why. */
  languages: Partial<Record<CodeLanguage, LanguageOverhead>>;
  seconds: number;
}

/** The first of `names` found executable on `path`, symlinks resolved; null when none is. */
export function findBinary(names: readonly string[], path: string): string | null {
  for (const name of names) {
    for (const dir of path.split(delimiter).filter(Boolean)) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return realpathSync(join(dir, name));
      } catch {
        // not here
      }
    }
  }
  return null;
}

/**
 * Calls `task` `warmup` times untimed (stopping early after a quarter of `budgetMs`, once two
 * ran), then up to `runs` times timed, stopping when `budgetMs` has passed and `min` samples are
 * in. Returns the wall ms of each timed call; `task` throws to stop the loop.
 */
export async function sample(
  task: () => Promise<void>,
  n: { warmup: number; runs: number; min: number; budgetMs: number },
): Promise<number[]> {
  const warmStart = performance.now();
  for (let i = 0; i < n.warmup; i++) {
    await task();
    if (i >= 1 && performance.now() - warmStart > n.budgetMs / 4) break;
  }
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < n.runs && (samples.length < n.min || performance.now() - start < n.budgetMs)) {
    const t0 = performance.now();
    await task();
    samples.push(performance.now() - t0);
  }
  return samples;
}

/**
 * One spawn of `file args` to its exit, output read and dropped. Stdin is /dev/null: on a socket
 * (what child_process gives by default) Debian's bash sources ~/.bashrc even for `-c`, a cost
 * (a pyenv init here) that is no part of starting bash.
 */
export function spawnOnce(file: string, args: string[], path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: path },
      timeout: SPAWN_TIMEOUT_MS,
    });
    let stderr = "";
    child.stdout.resume();
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-500);
    });
    child.on("error", reject);
    child.on("close", (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `${file} ${args.join(" ")} exited with ${signal ?? `code ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ""}`,
            ),
          ),
    );
  });
}

/** Spawns `file args` sequentially with a bare environment; wall ms per spawn. */
function spawnSamples(
  file: string,
  args: string[],
  n: { warmup: number; runs: number; min: number; budgetMs: number },
  path: string,
): Promise<number[]> {
  return sample(() => spawnOnce(file, args, path), n);
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Measures every language in turn, each step's samples right before its bare command's, so that
 * both see the same machine. `python` is the resolved interpreter (null: none). A language whose
 * bare binary is not on `path`, or whose first step fails (the runtime reports a missing
 * interpreter that way), is skipped with the reason.
 */
export async function runCodeOverhead(
  sizes: CodeOverheadSizes,
  opts: {
    python: string | null;
    path?: string;
    languages?: readonly CodeLanguage[];
    progress?: (line: string) => void;
    track?: (close: () => Promise<void>) => () => void;
  },
): Promise<CodeOverheadResult> {
  const started = performance.now();
  const path = opts.path ?? process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  const progress = opts.progress ?? (() => undefined);
  const track = opts.track ?? (() => () => undefined);
  const onPath = findBinary(["python3"], path);
  const python = {
    onPath: onPath === null ? null : findUnresolved("python3", path),
    executable: opts.python,
    shim: opts.python !== null && onPath !== null && onPath !== realpathOrSelf(opts.python),
    shimMs: null as Summary | null,
  };

  const runner: CodeRunner = await createCodeRunner({ pool: sizes.pool });
  const untrack = track(() => runner.close());
  const languages: Partial<Record<CodeLanguage, LanguageOverhead>> = {};
  try {
    const bareCache = new Map<string, Summary>();
    for (const language of opts.languages ?? OVERHEAD_LANGUAGES) {
      const c = CASES[language];
      const bareExecutable =
        language === "javascript" || language === "typescript"
          ? realpathOrSelf(process.execPath)
          : language === "python"
            ? opts.python
            : findBinary(c.bare.names, path);
      const entry: LanguageOverhead = {
        language,
        step: c.shown,
        bareCommand: c.bare.shown,
        bareExecutable,
        skipped: null,
        oursMs: null,
        bareMs: null,
        ratio: null,
        failures: [],
      };
      languages[language] = entry;
      if (!bareExecutable) {
        entry.skipped =
          language === "python"
            ? "python3 is not installed (no interpreter to resolve)"
            : `${c.bare.names.join(" or ")} not found on PATH`;
        progress(`code overhead: ${language} skipped: ${entry.skipped}`);
        continue;
      }

      const req: CodeRequest = { language, ...c.step, vars: {}, input: null, timeoutMs: sizes.timeoutMs };
      const first = await runner.run(req);
      if (!first.ok) {
        entry.skipped = `the runner cannot run it: ${first.error}`;
        progress(`code overhead: ${language} skipped: ${entry.skipped}`);
        continue;
      }
      progress(
        `code overhead: ${language} (${c.shown}), ${sizes.warmup} warm-up + up to ${sizes.runs} steps within ${sizes.budgetMs / 1000} s`,
      );
      const stepSamples = await sample(
        async () => {
          const r = await runner.run(req);
          const problem = !r.ok
            ? r.error
            : JSON.stringify(r.output) !== JSON.stringify(c.expected)
              ? `output ${JSON.stringify(r.output)}, expected ${JSON.stringify(c.expected)}`
              : null;
          if (problem) {
            entry.failures.push(problem);
            throw new Error(problem);
          }
        },
        { warmup: sizes.warmup, runs: sizes.runs, min: sizes.minRuns, budgetMs: sizes.budgetMs },
      ).catch(() => [] as number[]);
      entry.oursMs = stepSamples.length ? summarize(stepSamples) : null;

      const key = [bareExecutable, ...c.bare.args].join("\0");
      try {
        let bare = bareCache.get(key);
        if (!bare) {
          progress(
            `code overhead: ${c.bare.shown} (${bareExecutable}), ${sizes.bareWarmup} warm-up + up to ${sizes.bareRuns} spawns within ${sizes.bareBudgetMs / 1000} s`,
          );
          bare = summarize(
            await spawnSamples(
              bareExecutable,
              c.bare.args,
              {
                warmup: sizes.bareWarmup,
                runs: sizes.bareRuns,
                min: Math.min(sizes.minRuns, sizes.bareRuns),
                budgetMs: sizes.bareBudgetMs,
              },
              path,
            ),
          );
          bareCache.set(key, bare);
        }
        entry.bareMs = bare;
      } catch (err) {
        entry.failures.push(`${c.bare.shown}: ${errorText(err)}`);
      }
      if (entry.oursMs && entry.bareMs && entry.bareMs.median > 0)
        entry.ratio = round(entry.oursMs.median / entry.bareMs.median, 3);
    }

    // What every spawn of `python3` would cost through the shim the runtime resolves away.
    if (python.shim && python.onPath && sizes.shimRuns > 0) {
      progress(`code overhead: python3 -c pass through ${python.onPath}, ${sizes.shimRuns} spawns`);
      try {
        python.shimMs = summarize(
          await spawnSamples(
            python.onPath,
            ["-c", "pass"],
            { warmup: 1, runs: sizes.shimRuns, min: 1, budgetMs: sizes.bareBudgetMs },
            path,
          ),
        );
      } catch {
        python.shimMs = null;
      }
    }
    return {
      sizes,
      // Started at createCodeRunner (not at first use): its isolation is known.
      isolation: runner.isolation()!,
      python,
      languages,
      seconds: round((performance.now() - started) / 1000, 1),
    };
  } finally {
    untrack();
    await runner.close();
  }
}

/** `name`'s path on `path` as found (not resolved: a shim is a script, and resolving it changes nothing). */
function findUnresolved(name: string, path: string): string | null {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

function realpathOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

const fmt = (x: number): string => `${x.toFixed(2)} ms`;

function ratioText(r: number | null): string {
  if (r === null || !Number.isFinite(r) || r <= 0) return "n/a";
  return r < 1 ? `${r.toFixed(2)} (${(1 / r).toFixed(1)}x less)` : `${r.toFixed(2)} (${r.toFixed(1)}x more)`;
}

/** One header line for the report: what confines the steps measured. */
export function isolationText(i: Isolation): string {
  return `processes ${i.processes}, network ${i.network}, filesystem ${i.filesystem}, uids ${i.uids}, seccomp ${i.seccomp ? "on" : "off"}; limits: ${i.limits.length ? i.limits.join(", ") : "none reported"}`;
}

/** The section of the report: one row per language, then the skipped ones and the Python note. */
export function renderCodeOverhead(r: CodeOverheadResult): string {
  const rows: string[][] = [
    ["language", "step", "ours median", "ours p90", "n", "bare command", "bare median", "bare p90", "n", "ours / bare"],
  ];
  const notes: string[] = [];
  const measured = OVERHEAD_LANGUAGES.flatMap((language) => r.languages[language] ?? []);
  for (const l of measured) {
    if (l.skipped) {
      notes.push(`  ${l.language}: skipped, ${l.skipped}`);
      continue;
    }
    rows.push([
      l.language,
      l.step,
      l.oursMs ? fmt(l.oursMs.median) : "failed",
      l.oursMs ? fmt(l.oursMs.p90) : "",
      l.oursMs ? String(l.oursMs.n) : "0",
      l.bareCommand,
      l.bareMs ? fmt(l.bareMs.median) : "failed",
      l.bareMs ? fmt(l.bareMs.p90) : "",
      l.bareMs ? String(l.bareMs.n) : "0",
      ratioText(l.ratio),
    ]);
    for (const f of l.failures.slice(0, 3)) notes.push(`  ${l.language}: FAILED ${f}`);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const right = new Set([2, 3, 4, 6, 7, 8]);
  const table = rows.map((row) =>
    row
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
  const p = r.python;
  const pythonNote = !p.executable
    ? "  python3: not found"
    : p.shim
      ? `  python3 -c pass spawns ${p.executable} (sys.executable, resolved as the runtime does), not ${p.onPath}, a shim` +
        (p.shimMs ? ` that costs median ${fmt(p.shimMs.median)} per spawn (n=${p.shimMs.n})` : "")
      : `  python3 -c pass spawns ${p.executable} (sys.executable, the same as python3 on PATH)`;
  const bares = [
    ...new Set(
      measured
        .filter((l) => l.bareExecutable && !l.skipped)
        .map((l) => `${l.bareCommand.split(" ")[0]} = ${l.bareExecutable}`),
    ),
  ];
  return [
    `Code-step overhead per language (${r.sizes.pool} local runner, steps in sequence after warm-up; ${r.seconds} s)`,
    "  ours = wall time of one light step through createCodeRunner().run(), the overhead itself; bare = one child_process spawn of the interpreter, to exit",
    ...table.map((line) => `  ${line}`),
    pythonNote,
    `  bare binaries: ${bares.join(", ")}`,
    ...notes,
  ].join("\n");
}
