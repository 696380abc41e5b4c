import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** One bundle of `npm run build`: `source` (from the repository's root) compiled to `dist/<out>`. */
export interface Entry {
  source: string;
  out: string;
  /**
   * Its dynamic imports become chunks of their own (`dist/<out's name>-<hash>.js`), loaded when
   * they run; otherwise they are bundled in, and so are their packages' imports, loaded at start.
   */
  split?: boolean;
}

/**
 * Everything that runs from `dist/`, in one flat folder: the code looks for its helpers beside
 * its own module (`new URL("./x", import.meta.url)`), so these names are the ones it asks for.
 * Each service's main.ts is `dist/<service>.js`.
 */
export function entries(root: string): Entry[] {
  const services = readdirSync(join(root, "services"))
    .filter((name) => existsSync(join(root, "services", name, "src/main.ts")))
    .sort()
    .map((name) => ({ source: `services/${name}/src/main.ts`, out: `${name}.js` }));
  return [
    ...services,
    // The sandbox runner as a service of its own (its own container).
    { source: "services/executor/src/sandbox-main.ts", out: "sandbox.js" },
    // Started beside the modules that start them: all-in-one's executor thread, the sandbox
    // runner process every executor forks, and the JavaScript host every runner forks.
    { source: "services/all-in-one/src/executor-thread.ts", out: "executor-thread.js" },
    { source: "services/executor/src/code/sandbox-process.ts", out: "sandbox-process.js" },
    { source: "services/executor/src/code/js-host-process.ts", out: "js-host-process.js" },
    // The expression pool's host process, its thread, and what the thread loads at its first output schema
    // (eval-pool.ts, eval-host.mjs, eval-thread.mjs).
    { source: "shared/src/expressions/eval-host.mjs", out: "eval-host.mjs" },
    { source: "shared/src/expressions/eval-thread.mjs", out: "eval-thread.mjs" },
    { source: "shared/src/expressions/output-schemas.mjs", out: "output-schemas.mjs" },
    // Split: each command's modules load when that command runs.
    { source: "cli/src/main.ts", out: "wf.js", split: true },
  ];
}

/**
 * Folders copied as they are: the sandbox zygote's Python (sandbox-plan.ts) and the console's build (the edge's
 * WF_CONSOLE_DIR).
 */
export const ASSETS = [
  { source: "services/executor/src/code/zygote", out: "zygote" },
  { source: "services/console/dist", out: "console" },
];

/**
 * The workspaces whose production dependencies dist/ imports (every import of a package that is
 * not bundled must be one of theirs: the build checks it), and which the Dockerfile installs.
 */
export const RUNTIME_WORKSPACES = [
  "shared",
  "services/edge",
  "services/executor",
  "services/approvals",
  "services/scheduler",
  "services/all-in-one",
];
