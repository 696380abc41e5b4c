import { existsSync } from "node:fs";
import { join } from "node:path";
import { TEST_BUILD_ENV } from "@wf/testing";
import { entries } from "../../scripts/build/entries";

/**
 * The node arguments that run `source` (an entry point's path from the repository's root) as its
 * own process: its bundle of this test run (as `npm start` and the image run it), or with `fromSource` the TypeScript
 * through tsx, for a file no bundle is made of.
 */
export function entryArgs(root: string, source: string, opts: { fromSource?: boolean } = {}): string[] {
  if (opts.fromSource) return ["--import", "tsx", source];
  const entry = entries(root).find((e) => e.source === source);
  if (!entry) throw new Error(`${source} is no entry point of the build (scripts/build/entries.ts)`);
  const dir = process.env[TEST_BUILD_ENV];
  if (!dir || !existsSync(join(dir, entry.out)))
    throw new Error(`no test build of ${source}: vitest's global setup (test/support/test-build.ts) makes it`);
  return [join(dir, entry.out)];
}
