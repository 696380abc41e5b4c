import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_SCHEMA } from "../src/config/env";
import { ERROR_CATALOGUE } from "../src/errors/catalogue";
import { CONFIGURATION_DOC, ERRORS_DOC, renderConfigurationDoc, renderErrorsDoc } from "./write-docs";

describe("generated docs", () => {
  it.each([
    ["docs/configuration.md", CONFIGURATION_DOC, renderConfigurationDoc],
    ["docs/errors.md", ERRORS_DOC, renderErrorsDoc],
  ] as const)(
    "the committed %s is what the generator writes (run `npm run docs` after changing the code it comes from)",
    (_name, file, render) => {
      const committed = readFileSync(file, "utf8");
      expect(committed, `${file} is stale: run \`npm run docs\` and commit the result`).toBe(render(committed));
    },
  );

  it("lists every environment variable with its default", () => {
    const text = readFileSync(CONFIGURATION_DOC, "utf8");
    const rows = new Map(
      [...text.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| (.*?) \|/gm)].map((m) => [m[1]!, m[2]!] as const),
    );
    expect([...rows.keys()].sort()).toEqual(Object.keys(ENV_SCHEMA).sort());
    for (const [name, spec] of Object.entries(ENV_SCHEMA)) {
      expect(rows.get(name), name).toBe(spec.default === undefined ? "(unset)" : `\`${spec.default}\``);
    }
  });

  it("lists every error code with its HTTP status", () => {
    const text = readFileSync(ERRORS_DOC, "utf8");
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      expect(text, code).toMatch(new RegExp(`^\\| \`${code}\` \\| ${status} \\|`, "m"));
    }
  });
});
