// `npm run build`: every entry point bundled into dist/ (scripts/build/entries.ts), to run with
// plain `node dist/<entry>` and no TypeScript tooling. The repository's own packages (@wf/*) are
// bundled; every other package stays an import, found at run time in the production
// node_modules (native ones such as isolated-vm cannot be bundled at all).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleEntries } from "./bundle";
import { ASSETS, RUNTIME_WORKSPACES } from "./entries";
import { missingRuntimeDependencies } from "./runtime-deps";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dist = join(root, "dist");

// The console is built (when its sources changed) before it is copied in.
execFileSync(process.execPath, [join(root, "scripts/ensure-console-build.mjs")], { cwd: root, stdio: "inherit" });

// Built beside, then swapped in by renames: a process started from dist/ meanwhile reads a whole build.
const fresh = join(root, `.dist-${process.pid}`);
const old = join(root, `.dist-old-${process.pid}`);
rmSync(fresh, { recursive: true, force: true });
try {
  const metafiles = await bundleEntries(root, fresh);
  const missing = missingRuntimeDependencies(root, metafiles);
  if (missing.length > 0) {
    throw new Error(
      `dist/ imports ${missing.join(", ")}, which no production dependency of ${RUNTIME_WORKSPACES.join(", ")} brings: add each to the dependencies of the workspace that uses it`,
    );
  }
  for (const asset of ASSETS) cpSync(join(root, asset.source), join(fresh, asset.out), { recursive: true });
  // dist/ may be copied away from the repository's package.json: its bundles are ES modules.
  writeFileSync(join(fresh, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  if (existsSync(dist)) renameSync(dist, old);
  try {
    renameSync(fresh, dist);
  } catch (err) {
    // Another build of this checkout swapped its own in meanwhile: that one stands.
    if ((err as NodeJS.ErrnoException).code !== "ENOTEMPTY" && (err as NodeJS.ErrnoException).code !== "EEXIST")
      throw err;
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}
process.stderr.write(`[wf] built dist/ (node dist/all-in-one.js runs the service)\n`);
