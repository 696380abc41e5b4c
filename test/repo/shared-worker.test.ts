import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive } from "@wf/executor/testing";

/*
 * Test files share worker processes (vitest.config.ts); test/support/shared-worker.ts fails a file
 * that leaves its worker changed. This runs vitest on two files of its own in one worker: one
 * that leaves everything the check knows of behind, then one that leaves nothing.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const DIR = join(ROOT, ".tmp", `shared-worker-${process.pid}`);

const LEAVES = `
import { spawn } from "node:child_process";
import { it, vi } from "vitest";
it("changes its worker", () => {
  process.env.WF_LEFT_BEHIND = "1";
  vi.useFakeTimers();
  process.on("unhandledRejection", () => undefined);
  spawn("sleep", ["60"], { stdio: "ignore" });
});
`;

const CLEAN = `
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, it, vi } from "vitest";
const onExit = () => undefined;
beforeAll(() => void process.on("exit", onExit));
afterAll(() => void process.off("exit", onExit));
it("puts back what it changed", async () => {
  process.env.WF_PUT_BACK = "1";
  delete process.env.WF_PUT_BACK;
  vi.useFakeTimers();
  vi.useRealTimers();
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  child.kill("SIGKILL");
  await once(child, "exit");
});
`;

// Kept for the worker (test/support/worker-wide.ts), as the browser tests keep their console service:
// a process and an exit listener the check leaves alone, and which the worker's end takes away.
const KEEPS = (dir: string) => `
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { it } from "vitest";
import { keepForWorker } from ${JSON.stringify(join(ROOT, "test/support/worker-wide.ts"))};
it("keeps a process for the worker", async () => {
  const pid = await keepForWorker("sleeper", async () => {
    const child = spawn("sleep", ["60"], { stdio: "ignore" });
    process.once("exit", () => child.kill("SIGKILL"));
    return child.pid;
  }, (kept) => writeFileSync(${JSON.stringify(join(dir, "cleaned"))}, String(kept)));
  writeFileSync(${JSON.stringify(join(dir, "kept.pid"))}, String(pid));
});
`;

interface FileResult {
  name: string;
  status: string;
  message: string;
}

afterAll(async () => {
  await rm(DIR, { recursive: true, force: true });
});

describe("the shared worker check", () => {
  it("fails a file that leaves its worker changed, naming each thing left, and passes one that put everything back or keeps it for the worker", async () => {
    await mkdir(DIR, { recursive: true });
    await writeFile(join(DIR, "a-leaves.test.ts"), LEAVES);
    await writeFile(join(DIR, "b-clean.test.ts"), CLEAN);
    await writeFile(join(DIR, "c-keeps.test.ts"), KEEPS(DIR));
    await writeFile(
      join(DIR, "vitest.config.mjs"),
      `export default { test: { include: [${JSON.stringify(`${DIR}/*.test.ts`)}], pool: "forks", isolate: false,
        maxWorkers: 1, minWorkers: 1, sequence: { shuffle: false }, setupFiles: [${JSON.stringify(join(ROOT, "test/support/shared-worker.ts"))}] } };\n`,
    );
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
    const out = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, "node_modules/vitest/vitest.mjs"),
        "run",
        "--config",
        join(DIR, "vitest.config.mjs"),
        "--root",
        ROOT,
        "--reporter=json",
      ],
      { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: { stdout: string }) => err);
    const report = JSON.parse(out.stdout.slice(out.stdout.indexOf("{"))) as { testResults: FileResult[] };
    const byName = Object.fromEntries(report.testResults.map((r) => [r.name.split("/").pop(), r]));

    expect(byName["b-clean.test.ts"]?.status).toBe("passed");
    expect(byName["c-keeps.test.ts"]?.status).toBe("passed");
    // vitest ended the worker with a signal: the kept process went with it, and the cleanup ran on what was kept.
    const kept = Number(await readFile(join(DIR, "kept.pid"), "utf8"));
    expect(kept).toBeGreaterThan(0);
    // Killed, it may stay a zombie a moment until its new parent reaps it.
    await expect.poll(() => isAlive(kept)).toBe(false);
    expect(await readFile(join(DIR, "cleaned"), "utf8")).toBe(String(kept));
    const leaves = byName["a-leaves.test.ts"]!;
    expect(leaves.status).toBe("failed");
    expect(leaves.message).toContain("this test file left its worker changed");
    expect(leaves.message).toContain("environment variables changed: WF_LEFT_BEHIND");
    expect(leaves.message).toContain("fake timers still installed");
    expect(leaves.message).toContain("1 process 'unhandledRejection' listener(s) still installed");
    expect(leaves.message).toMatch(/child process \d+ still running: sleep 60/);
    // The check names the child; killing it is the file's job, so the test's here.
    const pid = Number(/child process (\d+) still running/.exec(leaves.message)![1]);
    process.kill(pid, "SIGKILL");
  });
});
