import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/*
 * The commit-msg hook that `npm install`'s prepare step installs: a real git repository with
 * the hook path the prepare step sets, and commits with subjects either side of 72 characters.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const SUBJECT_72 = "Keep the subject of this commit at exactly seventy-two characters please";

let dir: string;
const git = (...args: string[]) => run("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir });

async function commitMessage(message: string): Promise<{ stderr: string } | undefined> {
  const child = execFile(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--allow-empty", "--quiet", "-F", "-"],
    { cwd: dir },
  );
  child.stdin?.end(message);
  let stderr = "";
  child.stderr?.on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  return code === 0 ? undefined : { stderr };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wf-commit-msg-"));
  await git("init", "--quiet");
  await git("config", "core.hooksPath", join(ROOT, "scripts/git-hooks"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("the commit-msg hook", () => {
  it("accepts a subject of 72 characters, with a body of any length", async () => {
    expect(SUBJECT_72).toHaveLength(72);
    expect(await commitMessage(`${SUBJECT_72}\n\n${"a long body line ".repeat(20)}\n`)).toBeUndefined();
    expect((await git("log", "--format=%s")).stdout.trim()).toBe(SUBJECT_72);
  });

  it("refuses a subject of 73 characters and says why", async () => {
    const refused = await commitMessage(`${SUBJECT_72}!\n\nbody\n`);
    expect(refused?.stderr).toContain("the subject is 73 characters; at most 72 are allowed");
    await expect(git("log")).rejects.toThrow();
  });

  it("measures the subject as git shows it: the first paragraph's lines joined", async () => {
    const refused = await commitMessage(`${SUBJECT_72.slice(0, 40)}\n${SUBJECT_72.slice(0, 40)}\n\nbody\n`);
    expect(refused?.stderr).toContain("the subject is 81 characters");
  });

  it("counts characters, not bytes", async () => {
    expect(await commitMessage(`${"é".repeat(72)}\n`)).toBeUndefined();
  });
});

describe("npm install's prepare step", () => {
  const prepare = async (cwd: string) => {
    const { scripts } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    await run("sh", ["-c", scripts.prepare ?? ""], { cwd });
  };

  it("points git at the tracked hooks in a git checkout", async () => {
    await git("config", "--unset", "core.hooksPath");
    await prepare(dir);
    expect((await git("config", "core.hooksPath")).stdout.trim()).toBe("scripts/git-hooks");
  });

  it("does nothing, successfully, outside a git checkout", async () => {
    const plain = await mkdtemp(join(tmpdir(), "wf-no-git-"));
    try {
      await expect(prepare(plain)).resolves.toBeUndefined();
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });
});
