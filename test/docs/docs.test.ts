import { readFile, readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ENV_SCHEMA, loadConfig } from "@wf/shared/config";
import { ConfigError, ERROR_CATALOGUE } from "@wf/shared/errors";
import { parseWorkflow } from "@wf/shared/workflow";

const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("starts with the command that runs the service and the one that tests it", () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const commands = firstBlock.split("\n").filter(Boolean).map((l) => l.split("#")[0]!.trim());
    expect(commands).toEqual(["npm start", "npm test"]);
  });

  it("documents every environment variable with its default, and nothing that does not exist", () => {
    const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \| (.*?) \|/gm)].map((m) => [m[1]!, m[2]!] as const);
    const documented = new Map(rows.filter(([name]) => !(name in ERROR_CATALOGUE)));
    expect([...documented.keys()].sort()).toEqual(Object.keys(ENV_SCHEMA).sort());
    for (const [name, spec] of Object.entries(ENV_SCHEMA)) {
      expect(documented.get(name), name).toBe(spec.default === undefined ? "(unset)" : `\`${spec.default}\``);
    }
  });

  it("documents every error code of the catalogue with its status", () => {
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      expect(readme, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
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
