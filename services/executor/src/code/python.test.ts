import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerBundles, sleepers, sleepMarker, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownCgroup } from "./cgroup";
import type { CodeRequest, CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { descendants, RUNNER_PROCESS, runDirs, step, writtenRunDirs, zygotes } from "./testing/processes";

function py(code: string, extra: Partial<CodeRequest> = {}): CodeRequest {
  return step("python", code, extra);
}

/** The cgroups directly in `dir` (a throw when it does not exist: the steps have cgroups here). */
function cgroupsIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
}

describe("Python code steps", () => {
  let runner: CodeRunner;
  let scratch: string;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    scratch = await mkdtemp(join(tmpdir(), "wf-python-test-"));
    runner = await createCodeRunner({ pool: 1, tmpRoot: scratch, ...runnerBundles() });
  });
  afterAll(async () => {
    await runner.close();
    await rm(scratch, { recursive: true, force: true });
    delete process.env.WF_TEST_SECRET;
  });

  it("takes the last stdout line as JSON output, the rest as logs", async () => {
    const code = "import sys\nprint('working')\nprint('warn', file=sys.stderr)\nprint('[1, 2]')\nprint()";
    expect(await runner.run(py(code))).toMatchObject({ ok: true, output: [1, 2], logs: ["warn", "working", ""] });
  });

  it("takes the whole trimmed stdout as text output when the last line is not JSON", async () => {
    expect(await runner.run(py("print('hello')\nprint('world')\n"))).toMatchObject({
      ok: true,
      output: "hello\nworld",
    });
  });

  it("fails on a non-zero exit with the tail of stderr, or of stdout", async () => {
    const withStderr = await runner.run(
      py("import sys\nprint('out')\nsys.stderr.write('x' * 5000 + 'bad thing')\nsys.exit(3)"),
    );
    expect(withStderr).toMatchObject({ ok: false, timedOut: false });
    const error = withStderr.ok ? "" : withStderr.error;
    expect(error).toMatch(/^exited with code 3: x+bad thing$/);
    expect(error.length).toBeLessThan(2100);
    expect(await runner.run(py("print('only stdout'); raise SystemExit(2)"))).toMatchObject({
      ok: false,
      error: "exited with code 2: only stdout",
    });
  });

  it("fails an uncaught exception with its traceback", async () => {
    const result = await runner.run(py("def f():\n    raise ValueError('boom')\nf()"));
    expect(result).toMatchObject({ ok: false });
    expect(!result.ok && result.error).toMatch(
      /^exited with code 1: Traceback[\s\S]*line 2, in f[\s\S]*ValueError: boom$/,
    );
    expect(!result.ok && result.error).not.toContain("zygote");
  });

  it("runs in a clean environment, in a private directory removed afterwards", async () => {
    // What it starts inherits the same environment: os.environ set the process's own, not only Python's view of it.
    const code = `
import json, os, subprocess
open("scratch.txt", "w").write("x")
inherited = subprocess.run(["/bin/sh", "-c", "env -0"], capture_output=True, text=True).stdout
print(json.dumps({"env": sorted(os.environ), "cwd": os.getcwd(), "home": os.environ["HOME"],
  "inherited": sorted(line.split("=")[0] for line in inherited.split("\\0") if line),
  "a": os.environ["WF_VAR_a"],
  "artifacts": os.path.isdir(os.environ["WF_ARTIFACTS_DIR"]) and os.environ["WF_ARTIFACTS_DIR"]}))`;
    const result = await runner.run(py(code, { vars: { a: 1 } }));
    if (!result.ok) throw new Error(result.error);
    const output = result.output as { env: string[]; inherited: string[]; cwd: string; home: string; a: string };
    const names = ["HOME", "LANG", "PATH", "WF_ARTIFACTS_DIR", "WF_INPUT", "WF_VAR_a"];
    expect(output.env).toEqual(names);
    // sh adds PWD and SHLVL (and _) to what it was given.
    expect(output.inherited.filter((name) => !["PWD", "SHLVL", "_"].includes(name))).toEqual(names);
    expect(output.a).toBe("1");
    expect(output).toMatchObject({ cwd: "/step", home: "/step", artifacts: "/step/artifacts" });
    await waitFor(() => writtenRunDirs().length === 0, { what: "the run directory to be removed" });
  });

  it("removes what a step that wrote nothing had: its directory and its cgroups", async () => {
    for (let i = 0; i < 4; i++) expect(await runner.run(py("print(1)"))).toMatchObject({ ok: true, output: 1 });
    const [runnerPid] = descendants(process.pid, RUNNER_PROCESS);
    // The runner starts in this process's pids cgroup and makes its steps' below it.
    const stepCgroups = join("/sys/fs/cgroup/pids", ownCgroup("pids"), "wf-sandbox", String(runnerPid), "steps");
    // What stays is the steps' processes made ahead, two a zygote, each with its directory and cgroups.
    const ahead = 2 * zygotes().length;
    await waitFor(() => runDirs().length <= ahead && cgroupsIn(stepCgroups).length <= ahead, {
      what: "the finished steps' directories and cgroups to be removed",
    });
    expect(ahead).toBeGreaterThan(0);
  });

  it("kills everything it started at the timeout", async () => {
    const [a, b] = [sleepMarker(), sleepMarker()];
    const code = `
import subprocess
children = [subprocess.Popen(["sleep", m], start_new_session=True) for m in ("${a}", "${b}")]
print("started", flush=True)
children[0].wait()`;
    const lines: string[] = [];
    const running = runner.run(py(code, { timeoutMs: 2000 }), undefined, (line) => lines.push(line));
    await waitFor(() => lines.includes("started") && sleepers(a).length + sleepers(b).length === 2, {
      what: "both children to run",
    });
    expect(await running).toMatchObject({ ok: false, timedOut: true, error: "timed out after 2 s" });
    await waitFor(() => sleepers(a).length + sleepers(b).length === 0, { what: "both children to be gone" });
  });

  it("kills everything on abort", async () => {
    const marker = sleepMarker();
    const code = `import subprocess\nchild = subprocess.Popen(["sleep", "${marker}"])\nprint("started", flush=True)\nchild.wait()`;
    const controller = new AbortController();
    const lines: string[] = [];
    const running = runner.run(py(code, { timeoutMs: 60_000 }), controller.signal, (line) => lines.push(line));
    await waitFor(() => lines.includes("started") && sleepers(marker).length === 1, { what: "the step to run" });
    controller.abort();
    expect(await running).toMatchObject({ ok: false, timedOut: false, error: "aborted" });
    await waitFor(() => sleepers(marker).length === 0, { what: "its processes to be gone" });
  });

  it("routes the output of concurrent runs to their own results", async () => {
    const code = "import os, sys\nprint('log', os.environ['WF_INPUT'], file=sys.stderr)\nprint(os.environ['WF_INPUT'])";
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => runner.run(py(code, { input: { i } }))));
    results.forEach((result, i) => expect(result).toMatchObject({ ok: true, output: { i }, logs: [`log {"i":${i}}`] }));
  });

  it("fails the runs in flight when the zygote dies, and starts a new one", async () => {
    const marker = sleepMarker();
    const lines: string[] = [];
    const running = runner.run(
      py(`import subprocess\nprint("started", flush=True)\nsubprocess.run(["sleep", "${marker}"])`),
      undefined,
      (line) => lines.push(line),
    );
    await waitFor(() => lines.includes("started") && sleepers(marker).length === 1, { what: "the step to run" });
    const [zygote, ...others] = zygotes();
    expect(others).toEqual([]);
    process.kill(zygote!, "SIGKILL");
    const result = await running;
    expect(!result.ok && result.error).toMatch(/the zygote exited/);
    // The init of their PID namespace gone, the kernel kills every step it started.
    await waitFor(() => sleepers(marker).length === 0, { what: "the orphaned step process to be killed" });
    expect(await runner.run(py("print(7)"))).toMatchObject({ ok: true, output: 7 });
  });
});
