import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/*
 * No import cycle between the project's modules, type-only imports included: the lint rule
 * (import-x/no-cycle) passes over `import type`, which still ties two modules' meaning together.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const SOURCES = ["shared/src", "testing/src", "cli/src", "services"];
const EXTENSIONS = [".ts", ".tsx", ".mts", "/index.ts", "/index.tsx"];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (e) => {
      const path = join(dir, e.name);
      if (e.isDirectory())
        return e.name === "node_modules" || e.name === "dist" || e.name.startsWith(".") ? [] : sourceFiles(path);
      return /\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
    }),
  );
  return nested.flat();
}

/** The relative imports and re-exports of one file (values and types alike), resolved to files. */
function importsOf(file: string, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((spec) => spec.startsWith("."))
    .flatMap((spec) => {
      const base = resolve(dirname(file), spec.replace(/\.js$/, ""));
      const found = [base, ...EXTENSIONS.map((ext) => base + ext)].find(
        (p) => /\.(ts|tsx|mts)$/.test(p) && existsSync(p),
      );
      return found ? [found] : [];
    });
}

/** The cycles of the import graph of `files`: each strongly connected group of two or more (Tarjan). */
async function importCycles(files: string[], root: string): Promise<string[][]> {
  const graph = new Map<string, string[]>();
  await Promise.all(files.map(async (f) => graph.set(f, importsOf(f, await readFile(f, "utf8")))));
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      group.push(relative(root, w));
      if (w === v) break;
    }
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return cycles;
}

describe("import cycles", () => {
  it("finds none among the project's modules, type-only imports counted", async () => {
    const files = (await Promise.all(SOURCES.map((d) => sourceFiles(join(ROOT, d))))).flat();
    expect(files.length).toBeGreaterThan(500);
    expect(await importCycles(files, ROOT)).toEqual([]);
  });

  it("finds a cycle made only of type imports", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wf-cycles-"));
    try {
      await writeFile(join(dir, "a.ts"), `import type { B } from "./b";\nexport interface A { b: B }\n`);
      await writeFile(join(dir, "b.ts"), `import type { A } from "./a";\nexport interface B { a: A }\n`);
      await writeFile(join(dir, "c.ts"), `import { x } from "./d";\nexport const y = x;\n`);
      await writeFile(join(dir, "d.ts"), `export const x = 1;\n`);
      expect(
        await importCycles([join(dir, "a.ts"), join(dir, "b.ts"), join(dir, "c.ts"), join(dir, "d.ts")], dir),
      ).toEqual([["a.ts", "b.ts"]]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
