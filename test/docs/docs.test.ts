import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@wf/shared/config";
import { ConfigError } from "@wf/shared/errors";
import { parseWorkflow } from "@wf/shared/workflow";

const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
const repoRoot = new URL("../../", import.meta.url);
const docsDir = new URL("docs/", repoRoot);

describe("README", () => {
  it("starts with the command that runs the service and the one that tests it", () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const commands = firstBlock
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split("#")[0]!.trim());
    expect(commands).toEqual(["npm start", "npm test"]);
  });

  it("links every page of docs/", async () => {
    const pages = (await readdir(docsDir)).filter((f) => f.endsWith(".md"));
    for (const page of pages) expect(readme, page).toContain(`](docs/${page})`);
  });

  it("its example workflows are valid", async () => {
    const dir = new URL("../../examples/", import.meta.url);
    const files = (await readdir(dir)).filter((f) => f.endsWith(".yaml"));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const parsed = parseWorkflow(await readFile(new URL(f, dir), "utf8"));
      expect(parsed.ok ? [] : parsed.errors, f).toEqual([]);
    }
  });
});

// The tables of docs/configuration.md and docs/errors.md are checked against the code by the
// freshness test of `npm run docs` (shared/scripts/write-docs.test.ts).
describe("docs", () => {
  it("link only to files and headings that exist", async () => {
    const files = [
      new URL("../../README.md", import.meta.url),
      ...(await readdir(docsDir)).filter((f) => f.endsWith(".md")).map((f) => new URL(f, docsDir)),
    ];
    const broken: string[] = [];
    for (const file of files) {
      const text = (await readFile(file, "utf8")).replace(/```[\s\S]*?```/g, "");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split("#");
        // A leading `/` is the repository's root, as GitHub reads it.
        const linked = path
          ? new URL(path.startsWith("/") ? `.${path}` : path, path.startsWith("/") ? repoRoot : file)
          : file;
        if (!existsSync(linked)) broken.push(`${file.pathname}: ${target}`);
        else if (anchor && linked.pathname.endsWith(".md") && !headingSlugs(await readFile(linked, "utf8")).has(anchor))
          broken.push(`${file.pathname}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

/** The anchors GitHub gives a Markdown file's headings. */
function headingSlugs(text: string): Set<string> {
  const headings = text.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6} (.+)$/gm);
  return new Set(
    [...headings].map(([, h]) =>
      h!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );
}

describe("configuration", () => {
  it("uses the documented defaults", () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.WF_NAMESPACE).toBe("wf");
    expect(c.NATS_URL).toBeUndefined();
  });

  it.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["WF_NAMESPACE", "has.dots"],
    ["NATS_URL", "not a url"],
    ["WF_EXEC_CONCURRENCY", "0"],
    ["LOG_LEVEL", "loud"],
  ])("a bad %s (%s) stops start-up naming the variable", (name, value) => {
    let err: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`${name}=${JSON.stringify(value)}`);
  });

  it("reports every bad variable at once", () => {
    expect(() => loadConfig({ PORT: "x", LOG_LEVEL: "y" })).toThrow(/PORT=[\s\S]*LOG_LEVEL=/);
  });
});
