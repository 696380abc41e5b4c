import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@wf/shared/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { allGone, descendants, pidsIn, RUNNER_PROCESS, step } from "./test-support";

/** Proves a step is over and the runner still serves: one more step, after each that went wrong. */
async function stillServing(runner: CodeRunner): Promise<void> {
  expect(await runner.run(step("bash", "echo '{\"alive\": true}'"))).toMatchObject({ ok: true, output: { alive: true } });
  expect(await runner.run(step("javascript", "return 'alive'"))).toMatchObject({ ok: true, output: "alive" });
}

describe("the sandbox of code steps", () => {
  let runner: CodeRunner;
  let scratch: string;
  let server: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    runner = await createCodeRunner({
      pool: 1,
      limits: { processes: 64, memoryMb: 256, jsMemoryMb: 32, outputBytes: 1000, artifactFiles: 3, artifactFileBytes: 1000, artifactTotalBytes: 2000 },
    });
    scratch = await mkdtemp(join(tmpdir(), "wf-sandbox-test-"));
    server = createServer((socket) => {
      connections += 1;
      socket.end("hello\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await runner.close();
    server.close();
    await rm(scratch, { recursive: true, force: true });
    delete process.env.WF_TEST_SECRET;
  });

  it("reports the isolation in force: bubblewrap, a network namespace, the limits", () => {
    const isolation = runner.isolation();
    expect(isolation).toMatchObject({ network: "namespace", filesystem: "bubblewrap" });
    expect(isolation.limits).toEqual(expect.arrayContaining(["processes per step (pids cgroup)", "memory per process (RLIMIT_DATA)"]));
  });

  it("gives steps no network unless the step allows it", async () => {
    const code = `
import socket
try:
    with socket.create_connection(("127.0.0.1", ${port}), timeout=5) as s:
        print(s.recv(100).decode().strip())
except OSError as e:
    print(type(e).__name__)`;
    expect(await runner.run(step("python", code))).toMatchObject({ ok: true, output: "ConnectionRefusedError" });
    expect(connections).toBe(0);
    expect(await runner.run(step("python", code, { network: true }))).toMatchObject({ ok: true, output: "hello" });
    expect(connections).toBe(1);
  });

  it("keeps the service's and the runner's environments out of reach, even through /proc", async () => {
    const [runnerPid] = descendants(process.pid, RUNNER_PROCESS);
    expect(runnerPid).toBeDefined();
    const code = `
import json, os
readable, leaked = [], []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        env = open(f"/proc/{pid}/environ", "rb").read()
    except OSError:
        continue
    readable.append(int(pid))
    if b"WF_TEST_SECRET" in env:
        leaked.append(int(pid))
print(json.dumps({"readable": readable, "leaked": leaked, "mine": sorted(os.environ)}))`;
    const result = await runner.run(step("python", code));
    if (!result.ok) throw new Error(result.error);
    const output = result.output as { readable: number[]; leaked: number[]; mine: string[] };
    expect(output.leaked).toEqual([]);
    expect(output.readable).not.toContain(process.pid);
    expect(output.readable).not.toContain(runnerPid);
    expect(output.mine).toEqual(["HOME", "LANG", "PATH", "WF_ARTIFACTS_DIR", "WF_INPUT"]);
  });

  it("lets steps write only to their directory and the temporary directory", async () => {
    const code = `for f in /etc/wf-sandbox-test /usr/wf-sandbox-test "$HOME/ok" "$WF_VAR_dir/ok"; do touch "$f" 2>/dev/null && echo "wrote $f" || echo "refused $f"; done`;
    const result = await runner.run(step("bash", code, { vars: { dir: scratch } }));
    expect(result.ok && String(result.output).split("\n")).toEqual([
      "refused /etc/wf-sandbox-test",
      "refused /usr/wf-sandbox-test",
      expect.stringMatching(/^wrote .*\/ok$/),
      `wrote ${scratch}/ok`,
    ]);
    expect(existsSync("/etc/wf-sandbox-test")).toBe(false);
  });

  it("stops a fork bomb at the process limit, and goes on serving", async () => {
    // The shell stays (sleep) while the bomb grows: with `wait` it could exit before the limit,
    // its leftovers then simply killed with the step's cgroup.
    const result = await runner.run(step("bash", ":(){ :|:& };:; sleep 20", { timeoutMs: 30_000 }));
    expect(result).toMatchObject({ ok: false, timedOut: false, error: "exceeded the limit of 64 processes" });
    await stillServing(runner);
  });

  it("fails a memory hog at the memory limit, and goes on serving", async () => {
    const python = await runner.run(step("python", "x = bytearray(1024 ** 3)"));
    expect(!python.ok && python.error).toMatch(/^exited with code 1: Traceback[\s\S]*MemoryError$/);
    const bash = await runner.run(step("bash", "a=x; while :; do a=$a$a; done"));
    expect(!bash.ok && bash.error).toMatch(/cannot allocate/);
    const js = await runner.run(step("javascript", "const a = []; for (;;) a.push('x'.repeat(1000) + a.length);"));
    expect(js).toMatchObject({ ok: false, error: "memory limit of 32 MB exceeded" });
    await stillServing(runner);
  });

  it("stops an endless loop at the timeout, and goes on serving", async () => {
    expect(await runner.run(step("python", "while True: pass", { timeoutMs: 300 }))).toMatchObject({ ok: false, timedOut: true });
    expect(await runner.run(step("javascript", "for (;;) {}", { timeoutMs: 300 }))).toMatchObject({ ok: false, timedOut: true });
    await stillServing(runner);
  });

  it("leaves nothing running after the timeout, not even a grandchild in a session of its own", async () => {
    const pidFile = join(scratch, "grandchild.pids");
    const code = 'setsid sleep 100 & echo $! >> "$WF_VAR_pids"; (sleep 100 & echo $! >> "$WF_VAR_pids"; wait) & sleep 100';
    const result = await runner.run(step("bash", code, { vars: { pids: pidFile }, timeoutMs: 500 }));
    expect(result).toMatchObject({ ok: false, timedOut: true });
    await allGone(await pidsIn(pidFile, 2));
  });

  it("cuts output beyond the limit and says so", async () => {
    const result = await runner.run(step("bash", "head -c 5000 /dev/zero | tr '\\0' x; echo; echo tail >&2"));
    expect(result).toMatchObject({ ok: true, output: "x".repeat(1000), logs: ["tail", "x".repeat(1000), "[stdout truncated at 1000 bytes]"] });
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
    expect(await runner.run(step("python", `import os\nopen(os.environ["WF_ARTIFACTS_DIR"] + "/huge", "wb").write(b"x" * 10**6)`))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/File too large[\s\S]*; artifact huge exceeds 1000 bytes \(the limit per file\)$/),
    });
    const js = await runner.run(step("javascript", "for (const n of [1, 2, 3, 4]) artifacts.write(`f${n}`, 'x')"));
    expect(!js.ok && js.error).toMatch(/^Error: more than 3 artifact files \(the limit per step\)/);
    const escape = await runner.run(step("javascript", "artifacts.write('../outside', 'x')"));
    expect(!escape.ok && escape.error).toMatch(/is not a relative file path/);
  });

  it("streams log lines while the step runs", async () => {
    const go = join(scratch, "go");
    const lines: string[] = [];
    const running = runner.run(
      step("bash", 'echo started; echo warming >&2; while [ ! -f "$WF_VAR_go" ]; do sleep 0.02; done; echo finished', { vars: { go } }),
      undefined,
      (line) => lines.push(line),
    );
    await waitFor(() => lines.includes("started") && lines.includes("warming"), { what: "the first lines" });
    await writeFile(go, "");
    expect(await running).toMatchObject({ ok: true });
    expect(lines).toContain("finished");

    const order: string[] = [];
    const js = runner.run(step("javascript", "console.log('from js', 1); return 2"), undefined, (line) => order.push(line));
    await js.then(() => order.push("resolved"));
    expect(order).toEqual(["from js 1", "resolved"]);
  });
});
