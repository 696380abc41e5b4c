import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sourceDigest } from "../../scripts/stale-build.mjs";

describe("the digest a build is stamped with (scripts/stale-build.mjs)", () => {
  const dir = mkdtempSync(join(tmpdir(), "wf-stale-build-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (path: string, text: string): void => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const digest = (): string => sourceDigest(dir, [join(dir, "src"), join(dir, "lock.json")]);

  it("follows the sources' contents and names, not their times, dependencies or tests", () => {
    file("src/a.ts", "export const a = 1;");
    file("src/deep/b.ts", "export const b = 2;");
    file("lock.json", "{}");
    const first = digest();

    utimesSync(join(dir, "src/a.ts"), new Date(0), new Date(0));
    file("src/node_modules/x/index.js", "anything");
    file("src/a.test.ts", "a test");
    file("elsewhere.ts", "not an input");
    expect(digest()).toBe(first);

    file("src/deep/b.ts", "export const b = 3;");
    const changed = digest();
    expect(changed).not.toBe(first);
    file("src/deep/b.ts", "export const b = 2;");
    expect(digest()).toBe(first);

    rmSync(join(dir, "src/deep/b.ts"));
    file("src/deep/c.ts", "export const b = 2;");
    expect(digest()).not.toBe(first);
  });
});
