/**
 * `npm run bench`: the benchmarks (run.ts) run from a bundle, beside bundles of the services' entry points made as the
 * test suite makes them, as the image runs dist/. From the TypeScript sources through tsx, the suite's in-process
 * runtime spent about a tenth more CPU per workflow: tsx keeps function names by wrapping every function made at run
 * time (`npm run build` does not). This process makes the bundles, runs them with the image's NODE_OPTIONS, passes
 * Ctrl-C on, and removes them after.
 */
import { spawn } from "node:child_process";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleBeside } from "../../scripts/build/bundle";
import { TEST_BUILD_ENV } from "@wf/testing";
import makeTestBuild from "../support/test-build";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRY = { source: "test/bench/run.ts", out: "bench.js" };

async function main(): Promise<number> {
  console.error("bench: bundling the services and the benchmarks");
  const given = process.env[TEST_BUILD_ENV];
  const removeBuild = given ? () => undefined : await makeTestBuild();
  try {
    const dir = process.env[TEST_BUILD_ENV]!;
    // The benchmarks find the repository's files two folders up from their module, in the sources as in the bundle.
    if (relative(ROOT, dir).split(/[\\/]/).length !== 2)
      throw new Error(`the benchmarks' bundle must be two folders below ${ROOT}, not in ${dir}`);
    await bundleBeside(ROOT, dir, ENTRY);
    // A process group of its own: Ctrl-C reaches it once, passed on from here, and not also from the terminal, since
    // a second SIGINT ends the run before it stopped what it started.
    const child = spawn(process.execPath, ["--enable-source-maps", join(dir, ENTRY.out)], {
      stdio: "inherit",
      env: { ...process.env, [TEST_BUILD_ENV]: dir },
      detached: true,
    });
    // The run stops what it started on these, and exits with its own code.
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
    return await new Promise<number>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 130 : 1)));
    });
  } finally {
    removeBuild();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
