import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DIST = join(ROOT, "services/console/dist");
const VITE = join(ROOT, "node_modules/vite/bin/vite.js");

/** The aim for what the first page loads, gzipped (the editor is loaded on demand). */
export const FIRST_PAGE_AIM_KB = 300;

export interface ConsoleBundleResult {
  /** index.html, its entry script and style sheet and every chunk it preloads, gzipped. */
  firstPageKb: number;
  /** The workflow editor's chunks (CodeMirror and the validator), gzipped, loaded when the editor opens. */
  editorKb: number;
  /** Every file of the build, gzipped. */
  allKb: number;
  /** Baseline built in the same run: a bare React app (react-dom rendering one element), gzipped. */
  bareReactKb: number;
}

const kb = (bytes: number): number => Math.round((bytes / 1024) * 10) / 10;
const gz = async (path: string): Promise<number> => gzipSync(await readFile(path), { level: 9 }).length;

/**
 * What a browser downloads for the console's first page against what a bare React app costs,
 * both built by the same Vite here. The build is the one `npm start` makes (built now when stale).
 */
export async function runConsoleBundle(): Promise<ConsoleBundleResult> {
  execFileSync(process.execPath, [join(ROOT, "scripts/ensure-console-build.mjs")], { stdio: "inherit" });
  const html = await readFile(join(DIST, "index.html"), "utf8");
  const firstFiles = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
  let firstPage = await gz(join(DIST, "index.html"));
  for (const file of firstFiles) firstPage += await gz(join(DIST, file));

  const assets = await readdir(join(DIST, "assets"));
  let all = 0;
  let editor = 0;
  for (const file of assets) {
    const size = await gz(join(DIST, "assets", file));
    all += size;
    // The editor's own chunk and CodeMirror's, by the names Vite gives them from their modules.
    if (/editor|codemirror|WorkflowEditorPage/i.test(file) && !firstFiles.includes(`assets/${file}`)) editor += size;
  }
  return { firstPageKb: kb(firstPage), editorKb: kb(editor), allKb: kb(all), bareReactKb: kb(await bareReact()) };
}

async function bareReact(): Promise<number> {
  const dir = await mkdtemp(join(ROOT, "services/console/.bench-bare-"));
  try {
    await writeFile(
      join(dir, "index.html"),
      '<!doctype html><div id="root"></div><script type="module" src="./main.js"></script>',
    );
    await writeFile(
      join(dir, "main.js"),
      'import { createElement } from "react";\nimport { createRoot } from "react-dom/client";\ncreateRoot(document.getElementById("root")).render(createElement("p", null, "hello"));\n',
    );
    const out = await mkdtemp(join(tmpdir(), "wf-bare-react-"));
    execFileSync(process.execPath, [VITE, "build", "--logLevel", "error", "--outDir", out, "--emptyOutDir"], {
      cwd: dir,
      stdio: "inherit",
    });
    let total = 0;
    for (const file of await readdir(join(out, "assets"))) total += await gz(join(out, "assets", file));
    await rm(out, { recursive: true, force: true });
    return total;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function renderConsoleBundle(r: ConsoleBundleResult): string {
  return [
    "console bundle (gzipped)",
    `  first page ${r.firstPageKb} KB (aim < ${FIRST_PAGE_AIM_KB} KB: ${r.firstPageKb < FIRST_PAGE_AIM_KB ? "met" : "NOT met"}), ` +
      `${(r.firstPageKb / r.bareReactKb).toFixed(2)}× a bare React app built in this run (${r.bareReactKb} KB)`,
    `  workflow editor, loaded on demand: ${r.editorKb} KB; every file of the build: ${r.allKb} KB`,
  ].join("\n");
}
