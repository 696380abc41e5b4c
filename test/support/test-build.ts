// Vitest's global setup: the service's entry points bundled once per test run, as `npm run
// build` bundles them, so that the CLI and service processes the tests start run as plain node.
// From the TypeScript sources every such process spends ~0.5 s of CPU more starting (tsx
// resolving and loading ~150 modules), and the suite starts hundreds of them.
import { mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleEntries } from "../../scripts/build/bundle";
import { ASSETS } from "../../scripts/build/entries";
import { TEST_BUILD_ENV } from "@wf/testing";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Whether process `pid` still runs (a build of a run killed before its teardown is left behind). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export default async function setup(): Promise<() => void> {
  // Inside the repository: the bundles import every package they do not bundle from the
  // node_modules above them, and are ES modules by its package.json. Not in .data, which the
  // service makes private (0700) when it creates it: a runner's JavaScript host, under a uid of
  // its own, could not reach its bundle there.
  const parent = join(ROOT, ".tmp");
  mkdirSync(parent, { recursive: true });
  for (const name of readdirSync(parent)) {
    const pid = /^test-build-(\d+)$/.exec(name)?.[1];
    if (pid && !alive(Number(pid))) rmSync(join(parent, name), { recursive: true, force: true });
  }
  // One left by an earlier process of this pid is stale too.
  const dir = join(parent, `test-build-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  await bundleEntries(ROOT, dir);
  // The assets `npm run build` copies, linked instead: the console is built by the tests that
  // need it, while this runs.
  for (const asset of ASSETS) symlinkSync(join(ROOT, asset.source), join(dir, asset.out));
  // The test files' processes are forked after this, with this environment.
  process.env[TEST_BUILD_ENV] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
