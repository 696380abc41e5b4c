import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { entries, RUNTIME_WORKSPACES } from "../../scripts/build/entries";
import { ROOT } from "./built-process";

const dockerfile = await readFile(new URL("../../Dockerfile", import.meta.url), "utf8");
/** The instructions of the last stage: the image that runs. */
const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));

describe("Dockerfile", () => {
  it("installs the production dependencies of the workspaces whose packages dist/ imports (the build checks those imports)", () => {
    const workspaces = [...dockerfile.matchAll(/ -w (\S+)/g)].map((m) => m[1]).sort();
    expect(workspaces).toEqual([...RUNTIME_WORKSPACES].sort());
    expect(dockerfile).toMatch(/npm install --omit=dev/);
  });

  it("runs from dist/ with plain node: the image holds the build and production node_modules, no source", () => {
    const copies = [...runtime.matchAll(/^COPY (.+)$/gm)].map((m) => m[1]);
    expect(copies).toEqual(["--from=dependencies /app/node_modules node_modules", "--from=build /src/dist dist"]);
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(runtime)![1]!) as string[];
    expect(cmd).toEqual(["node", "dist/all-in-one.js"]);
    expect(entries(ROOT).map((e) => `dist/${e.out}`)).toContain(cmd[1]);
    expect(runtime).not.toMatch(/tsx/);
    expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    for (const tool of ["python3", "ruby", "lua5.4", "bubblewrap", "tini"])
      expect(runtime, tool).toContain(` ${tool} `);
    expect(runtime).toMatch(/^USER node$/m);
  });
});
