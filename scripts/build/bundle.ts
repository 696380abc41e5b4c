import { build, type BuildOptions, type Metafile, type Plugin } from "esbuild";
import { entries, type Entry } from "./entries";

const externalPackages: Plugin = {
  name: "external-packages",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith("@wf/") ? undefined : { path: args.path, external: true },
    );
  },
};

function common(root: string, outdir: string): BuildOptions & { metafile: true } {
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
    // No keepNames: it wraps every function made at run time in a `__name(fn, "...")` call, 2.3-2.4%
    // of the executor's main thread under load. Errors name themselves (`this.name`), and a stack
    // trace's frames map back to the sources (NODE_OPTIONS=--enable-source-maps in the image); a
    // top-level name that bundling renamed to avoid a clash shows renamed in a frame.
    keepNames: false,
    plugins: [externalPackages],
    logLevel: "warning",
    metafile: true,
  };
}

/**
 * Every entry point (entries.ts) bundled into `outdir`, which must lie inside the repository:
 * the repository's own packages (@wf/*) are bundled, every other package stays an import that
 * node resolves from the node_modules above. Assets are the caller's to add.
 */
export async function bundleEntries(root: string, outdir: string): Promise<Metafile[]> {
  const all = entries(root);
  const scripts = all.filter((e) => e.out.endsWith(".js") && !e.split);
  const modules = all.filter((e) => e.out.endsWith(".mjs"));
  const results = await Promise.all([
    build({
      ...common(root, outdir),
      entryPoints: scripts.map((e) => ({ in: e.source, out: e.out.replace(/\.js$/, "") })),
    }),
    build({
      ...common(root, outdir),
      entryPoints: modules.map((e) => ({ in: e.source, out: e.out.replace(/\.mjs$/, "") })),
      outExtension: { ".js": ".mjs" },
    }),
    // Each on its own: chunks shared with another entry would tie their builds together. In the
    // same folder as the entry, as its modules look for their helpers beside themselves.
    ...all
      .filter((e) => e.split)
      .map((e) => {
        const name = e.out.replace(/\.js$/, "");
        return build({
          ...common(root, outdir),
          entryPoints: [{ in: e.source, out: name }],
          splitting: true,
          chunkNames: `${name}-[hash]`,
        });
      }),
  ]);
  return results.map((r) => r.metafile);
}

/**
 * `entry` bundled alone into `outdir`, as the entry points are: a tool run beside their bundles (the benchmarks) then
 * runs the code as it ships, and finds the helpers it starts (runners, hosts) beside itself.
 */
export async function bundleBeside(root: string, outdir: string, entry: Entry): Promise<void> {
  await build({ ...common(root, outdir), entryPoints: [{ in: entry.source, out: entry.out.replace(/\.js$/, "") }] });
}
