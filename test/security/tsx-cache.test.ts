import { execFile } from "node:child_process";
import { chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../scripts/private-tsx-cache.mjs", import.meta.url));
const uid = process.geteuid!();
const scratch: string[] = [];

/** Where the script would put the cache with its temporary directory a scratch one. */
function prepare(): { dir: string } {
  const tmp = mkdtempSync(join(tmpdir(), "wf-tsx-cache-test-"));
  scratch.push(tmp);
  return { dir: join(tmp, `tsx-${uid}`) };
}

/** Runs the script as npm does before start and test, with TMPDIR `tmp`; its warnings. */
async function run(tmp: string): Promise<string> {
  const { stderr } = await promisify(execFile)(process.execPath, [SCRIPT], { env: { ...process.env, TMPDIR: tmp } });
  return stderr;
}

afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("tsx's compile cache before npm start and npm test", () => {
  it("is made this user's own, 0700", async () => {
    const { dir } = prepare();
    await run(join(dir, ".."));
    const stat = lstatSync(dir);
    expect([stat.isDirectory(), stat.uid, stat.mode & 0o777]).toEqual([true, uid, 0o700]);
  });

  it("is taken back when another user made it first, with whatever it put there", async (ctx) => {
    ctx.skip(uid !== 0, "only root can make a directory another user's");
    const { dir } = prepare();
    mkdirSync(dir, { mode: 0o777 });
    writeFileSync(join(dir, "planted"), "code another user wrote");
    chownSync(dir, 12345, 12345);
    const stderr = await run(join(dir, ".."));
    expect(stderr).toContain("is not this user's own directory: removing it");
    expect(existsSync(join(dir, "planted"))).toBe(false);
    const stat = lstatSync(dir);
    expect([stat.uid, stat.mode & 0o777]).toEqual([uid, 0o700]);
  });
});
