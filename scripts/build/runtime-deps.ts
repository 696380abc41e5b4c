import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import type { Metafile } from "esbuild";
import { RUNTIME_WORKSPACES } from "./entries";

/** `@scope/name/sub/path` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/**
 * The packages dist/ imports that a production install of RUNTIME_WORKSPACES would not bring
 * (a devDependency, or a dependency of another workspace only): each would fail at run time in
 * the image, whose node_modules holds nothing else.
 */
export function missingRuntimeDependencies(root: string, metafiles: Metafile[]): string[] {
  const provided = new Set<string>();
  for (const workspace of RUNTIME_WORKSPACES) {
    const manifest = JSON.parse(readFileSync(join(root, workspace, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies ?? {})) provided.add(name);
  }
  const imported = new Set<string>();
  for (const metafile of metafiles) {
    for (const output of Object.values(metafile.outputs)) {
      for (const i of output.imports) if (i.external && !isBuiltin(i.path)) imported.add(packageOf(i.path));
    }
  }
  return [...imported].filter((name) => !provided.has(name)).sort();
}
