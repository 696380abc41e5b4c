import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerBundles, sleepers, sleepMarker, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { step } from "./testing/processes";

/** Proves a step is over and the runner still serves: one more step, after each that went wrong. */
async function stillServing(runner: CodeRunner): Promise<void> {
  expect(await runner.run(step("bash", "echo '{\"alive\": true}'"))).toMatchObject({
    ok: true,
    output: { alive: true },
  });
  expect(await runner.run(step("javascript", "return 'alive'"))).toMatchObject({ ok: true, output: "alive" });
}

describe("the sandbox of code steps: limits and artifacts", () => {
  let runner: CodeRunner;
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "wf-limits-test-"));
    runner = await createCodeRunner({
      pool: 1,
      ...runnerBundles(),
      tmpRoot: scratch,
      limits: {
        processes: 64,
        memoryMb: 256,
        tmpMb: 8,
        jsMemoryMb: 32,
        outputBytes: 1000,
        artifactFiles: 3,
        artifactFileBytes: 1000,
        artifactTotalBytes: 2000,
      },
    });
  });
  afterAll(async () => {
    await runner.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("stops a fork bomb at the process limit, and goes on serving", async () => {
    // The shell stays (sleep) while the bomb grows: with `wait` it could exit before the limit,
    // its leftovers then simply killed with the step.
    const result = await runner.run(step("bash", ":(){ :|:& };:; sleep 20", { timeoutMs: 30_000 }));
    expect(result).toMatchObject({ ok: false, timedOut: false, error: "exceeded the limit of 64 processes" });
    await stillServing(runner);
  });

  it("fails a memory hog at the memory limit, one process or many, and goes on serving", async () => {
    const python = await runner.run(step("python", "x = bytearray(1024 ** 3)"));
    expect(python).toMatchObject({ ok: false, timedOut: false, error: "exceeded the memory limit of 256 MB" });
    // Four processes of 100 MB each: each under the limit per process, together over the step's.
    const many = await runner.run(
      step(
        "bash",
        "for i in 1 2 3 4; do python3 -c 'import time; x = bytearray(100 * 2**20); time.sleep(20)' & done; wait",
        { timeoutMs: 30_000 },
      ),
    );
    expect(many).toMatchObject({ ok: false, timedOut: false, error: "exceeded the memory limit of 256 MB" });
    const js = await runner.run(step("javascript", "const a = []; for (;;) a.push('x'.repeat(1000) + a.length);"));
    expect(js).toMatchObject({ ok: false, error: "memory limit of 32 MB exceeded" });
    await stillServing(runner);
  });

  it("keeps /tmp to its size", async () => {
    // Small files (each under the file size limit) until the 8 MB of /tmp are full: a page each.
    const code = `
import errno, json, os
written = 0
try:
    for i in range(4000):
        with open(f"/tmp/f{i}", "wb") as f:
            f.write(b"x" * 1000)
        written += 1
except OSError as e:
    print(json.dumps({"error": errno.errorcode[e.errno], "written": written}))`;
    const result = await runner.run(step("python", code));
    expect(result).toMatchObject({ ok: true, output: { error: "ENOSPC", written: expect.any(Number) } });
    expect((result.ok && (result.output as { written: number }).written) || 0).toBeLessThanOrEqual(2048);
  });

  it("stops an endless loop at the timeout, and goes on serving", async () => {
    expect(await runner.run(step("python", "while True: pass", { timeoutMs: 300 }))).toMatchObject({
      ok: false,
      timedOut: true,
    });
    expect(await runner.run(step("javascript", "for (;;) {}", { timeoutMs: 300 }))).toMatchObject({
      ok: false,
      timedOut: true,
    });
    await stillServing(runner);
  });

  it("leaves nothing running after the timeout, not even a grandchild in a session of its own", async () => {
    const [a, b] = [sleepMarker(), sleepMarker()];
    const lines: string[] = [];
    const running = runner.run(
      step("bash", `setsid sleep ${a} & (sleep ${b} & wait) & echo started; sleep 100`, { timeoutMs: 2000 }),
      undefined,
      (l) => lines.push(l),
    );
    await waitFor(() => lines.includes("started") && sleepers(a).length + sleepers(b).length === 2, {
      what: "the grandchildren to run",
    });
    expect(await running).toMatchObject({ ok: false, timedOut: true });
    await waitFor(() => sleepers(a).length + sleepers(b).length === 0, { what: "the grandchildren to be gone" });
  });

  it("cuts output beyond the limit and says so", async () => {
    const result = await runner.run(step("bash", "head -c 5000 /dev/zero | tr '\\0' x; echo; echo tail >&2"));
    expect(result).toMatchObject({
      ok: true,
      output: "x".repeat(1000),
      logs: ["tail", "x".repeat(1000), "[stdout truncated at 1000 bytes]"],
    });
  });

  it("fails a step past an artifact limit, naming it", async () => {
    const write = (files: Record<string, number>) =>
      Object.entries(files)
        .map(([name, size]) => `head -c ${size} /dev/zero > "$WF_ARTIFACTS_DIR/${name}"`)
        .join("; ");
    expect(await runner.run(step("bash", write({ a: 1, b: 1, c: 1, d: 1 })))).toMatchObject({
      ok: false,
      error: "more than 3 artifact files (the limit per step)",
      artifacts: [],
    });
    expect(await runner.run(step("bash", write({ big: 1001 })))).toMatchObject({
      ok: false,
      error: "artifact big exceeds 1000 bytes (the limit per file)",
    });
    expect(await runner.run(step("bash", write({ a: 900, b: 900, c: 900 })))).toMatchObject({
      ok: false,
      error: "artifacts exceed 2000 bytes in all (the limit per step)",
    });
    // RLIMIT_FSIZE stops a file one byte past the per-file limit.
    expect(
      await runner.run(
        step("python", `import os\nopen(os.environ["WF_ARTIFACTS_DIR"] + "/huge", "wb").write(b"x" * 10**6)`),
      ),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/File too large[\s\S]*; artifact huge exceeds 1000 bytes \(the limit per file\)$/),
    });
    const js = await runner.run(step("javascript", "for (const n of [1, 2, 3, 4]) artifacts.write(`f${n}`, 'x')"));
    expect(!js.ok && js.error).toMatch(/^Error: more than 3 artifact files \(the limit per step\)/);
    const escape = await runner.run(step("javascript", "artifacts.write('../outside', 'x')"));
    expect(!escape.ok && escape.error).toMatch(/is not a relative file path/);
  });

  it("returns files the step wrote, never what a link in its artifacts points at", async () => {
    await writeFile(join(scratch, "outside"), "outside the sandbox");
    const code = `
cd "$WF_ARTIFACTS_DIR"
echo mine > real.txt
ln -s /etc/passwd passwd-link
ln -s /proc/1/environ environ-link
mkdir sub && ln -s / sub/root
ln /usr/bin/env hard 2>/dev/null || echo "no hard link"
echo done`;
    const result = await runner.run(step("bash", code));
    expect(result).toMatchObject({
      ok: true,
      output: "no hard link\ndone",
      artifacts: [{ path: "real.txt", size: 5 }],
    });
    expect(result.artifacts).toHaveLength(1);
  });

  it("reads the artifacts only once the step's processes are gone: a file swapped for a link is never followed", async () => {
    // A child keeps swapping z.txt and a link to the step's environment; it dies with the step,
    // before the artifacts are read, so what is read is whichever was there, as a file or not at all.
    const code = `
import os, subprocess
os.chdir(os.environ["WF_ARTIFACTS_DIR"])
open("z.txt", "w").write("innocent")
os.symlink("/proc/1/environ", "link")
subprocess.Popen(["python3", "-c", """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
while True:
    libc.renameat2(-100, b"z.txt", -100, b"link", 2)
"""])
import time; time.sleep(0.3)
print("done")`;
    const result = await runner.run(step("python", code, { vars: { WF_SECRET_IN_ENV: "swap-race-secret" } }));
    expect(result).toMatchObject({ ok: true, output: "done" });
    for (const artifact of result.artifacts) {
      expect(artifact.content.toString()).not.toContain("swap-race-secret");
      expect(artifact.content.toString()).toBe("innocent");
    }
  });

  it("streams log lines while the step runs", async () => {
    const marker = sleepMarker();
    const lines: string[] = [];
    const running = runner.run(
      step("bash", `echo started; echo warming >&2; sleep ${marker}; echo finished`),
      undefined,
      (line) => lines.push(line),
    );
    await waitFor(() => lines.includes("started") && lines.includes("warming") && sleepers(marker).length === 1, {
      what: "the first lines",
    });
    expect(lines).not.toContain("finished");
    // The step goes on once its sleep is over, ended from the host.
    process.kill(sleepers(marker)[0]!, "SIGKILL");
    expect(await running).toMatchObject({ ok: true });
    expect(lines).toContain("finished");

    const order: string[] = [];
    const js = runner.run(step("javascript", "console.log('from js', 1); return 2"), undefined, (line) =>
      order.push(line),
    );
    await js.then(() => order.push("resolved"));
    expect(order).toEqual(["from js 1", "resolved"]);
  });
});
