// `npm run build`: every entry point bundled into dist/ (scripts/build/entries.ts), to run with
// plain `node dist/<entry>` and no TypeScript tooling. The repository's own packages (@wf/*) are
// bundled; every other package stays an import, found at run time in the production
// node_modules (native ones such as isolated-vm cannot be bundled at all).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions, type Plugin } from "esbuild";
import { ASSETS, entries, RUNTIME_WORKSPACES } from "./entries";
import { missingRuntimeDependencies } from "./runtime-deps";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dist = join(root, "dist");

const externalPackages: Plugin = {
  name: "external-packages",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@wf/") ? undefined : { path: args.path, external: true }));
  },
};

function common(outdir: string): BuildOptions & { metafile: true } {
  return {
    absWorkingDir: root,
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    sourcemap: "linked",
    // The maps point at the sources by path; a stack trace needs no more.
    sourcesContent: false,
    // Bundling renames clashing top-level names; errors and logs keep the real ones.
    keepNames: true,
    plugins: [externalPackages],
    logLevel: "warning",
    metafile: true,
  };
}

// The console is built (when its sources changed) before it is copied in.
execFileSync(process.execPath, [join(root, "scripts/ensure-console-build.mjs")], { cwd: root, stdio: "inherit" });

// Built beside, then swapped in by renames: a process started from dist/ meanwhile reads a whole build.
const fresh = join(root, `.dist-${process.pid}`);
const old = join(root, `.dist-old-${process.pid}`);
rmSync(fresh, { recursive: true, force: true });
try {
  const all = entries(root);
  const scripts = all.filter((e) => e.out.endsWith(".js"));
  const modules = all.filter((e) => e.out.endsWith(".mjs"));
  const results = [
    await build({ ...common(fresh), entryPoints: scripts.map((e) => ({ in: e.source, out: e.out.replace(/\.js$/, "") })) }),
    await build({ ...common(fresh), entryPoints: modules.map((e) => ({ in: e.source, out: e.out.replace(/\.mjs$/, "") })), outExtension: { ".js": ".mjs" } }),
  ];
  const missing = missingRuntimeDependencies(
    root,
    results.map((r) => r.metafile),
  );
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
    if ((err as NodeJS.ErrnoException).code !== "ENOTEMPTY" && (err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}
process.stderr.write(`[wf] built dist/ (node dist/all-in-one.js runs the service)\n`);
