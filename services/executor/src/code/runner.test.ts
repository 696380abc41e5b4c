import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "@wf/shared/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodeRunner } from "./index";
import { allGone, descendants, isAlive, pidsIn, RUNNER_PROCESS, step, ZYGOTE_PROCESS } from "./test-support";

const SANDBOX_MAIN = fileURLToPath(new URL("../sandbox-main.ts", import.meta.url));

describe("createCodeRunner", () => {
  let scratch: string;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    scratch = await mkdtemp(join(tmpdir(), "wf-runner-test-"));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
    delete process.env.WF_TEST_SECRET;
  });

  it("runs steps in a pool of runner processes, least busy first, none holding the service's environment", async () => {
    const runner = await createCodeRunner({ pool: 2 });
    try {
      const runners = descendants(process.pid, RUNNER_PROCESS);
      expect(runners).toHaveLength(2);
      for (const pid of runners) expect(readFileSync(`/proc/${pid}/environ`, "utf8")).not.toContain("WF_TEST_SECRET");
      const pidFile = join(scratch, "pool.pids");
      // Two at once: the second goes to the runner the first left idle, so to the other zygote.
      const code = 'import os, time\nopen(os.environ["WF_VAR_pids"], "a").write(f"{os.getppid()}\\n")\ntime.sleep(0.2)';
      const results = await Promise.all([0, 1].map(() => runner.run(step("python", code, { vars: { pids: pidFile } }))));
      expect(results.map((r) => r.ok)).toEqual([true, true]);
      expect(new Set(await pidsIn(pidFile, 2)).size).toBe(2);
    } finally {
      await runner.close();
    }
  });

  it("fails the runs in flight when a runner process dies, and starts a new one", async () => {
    const runner = await createCodeRunner({ pool: 1 });
    try {
      const [pid] = descendants(process.pid, RUNNER_PROCESS);
      if (pid === undefined) throw new Error("no runner process");
      const pidFile = join(scratch, "death.pids");
      const js = runner.run(step("javascript", "for (;;) {}", { timeoutMs: 60_000 }));
      const bash = runner.run(step("bash", 'echo $$ >> "$WF_VAR_pids"; sleep 100', { vars: { pids: pidFile }, timeoutMs: 60_000 }));
      const [stepPid] = await pidsIn(pidFile, 1);
      process.kill(pid, "SIGKILL");
      for (const result of await Promise.all([js, bash])) {
        expect(!result.ok && result.error).toMatch(/^the sandbox runner process exited unexpectedly \(SIGKILL\)/);
      }
      // Its zygote reads the end of its input and kills its steps.
      await allGone([stepPid!]);
      expect(await runner.run(step("javascript", "return 'again'"))).toMatchObject({ ok: true, output: "again" });
      expect(await runner.run(step("bash", "echo again"))).toMatchObject({ ok: true, output: "again" });
      expect(isAlive(pid)).toBe(false);
      expect(descendants(process.pid, RUNNER_PROCESS)).toHaveLength(1);
    } finally {
      await runner.close();
    }
  });

  it("close() ends the runs in flight, its processes and its directory", async () => {
    const tmpRoot = join(scratch, "root");
    await mkdir(tmpRoot);
    const runner = await createCodeRunner({ tmpRoot });
    const pidFile = join(scratch, "close.pids");
    const base = { vars: { pids: pidFile }, input: null, timeoutMs: 60_000 };
    const runs = [
      runner.run({ ...base, language: "javascript", code: "for (;;) {}" }),
      runner.run({ ...base, language: "bash", code: 'echo $$ >> "$WF_VAR_pids"; sleep 100' }),
      runner.run({ ...base, language: "python", code: 'import os, time\nopen(os.environ["WF_VAR_pids"], "a").write(f"{os.getpid()}\\n")\ntime.sleep(100)' }),
    ];
    const pids = await waitFor(async () => {
      const found = (await readFile(pidFile, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
      return found.length === 2 && found;
    });
    const processes = [...descendants(process.pid, RUNNER_PROCESS), ...descendants(process.pid, ZYGOTE_PROCESS)];
    expect(processes.length).toBeGreaterThanOrEqual(3);
    await runner.close();
    for (const result of await Promise.all(runs)) expect(result).toMatchObject({ ok: false });
    await allGone([...pids, ...processes]);
    expect(await readdir(tmpRoot)).toEqual([]);
    await expect(runner.run({ ...base, language: "javascript", code: "return 1" })).rejects.toThrow(/closed/);
  });

  describe("with a standalone sandbox runner", () => {
    let sandbox: ChildProcess;
    let socket: string;
    beforeAll(async () => {
      socket = join(scratch, "sandbox.sock");
      sandbox = spawn(process.execPath, ["--import", "tsx", "--no-node-snapshot", SANDBOX_MAIN], {
        env: { PATH: process.env.PATH ?? "", WF_SANDBOX_SOCKET: socket },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let log = "";
      sandbox.stderr?.setEncoding("utf8").on("data", (text: string) => (log += text));
      await waitFor(() => log.includes("ready on"), { what: `the sandbox runner to listen (${log})`, timeoutMs: 20_000 });
    });
    afterAll(async () => {
      const exited = new Promise((resolve) => sandbox.once("exit", resolve));
      sandbox.kill("SIGTERM");
      await exited;
    });

    it("runs steps through its socket, logs streamed and artifacts returned", async () => {
      const runner = await createCodeRunner({ socket });
      try {
        expect(runner.isolation()).toMatchObject({ network: "namespace", filesystem: "bubblewrap" });
        expect(descendants(process.pid, RUNNER_PROCESS)).toEqual([]);
        const lines: string[] = [];
        const code = 'import os\nprint("working")\nopen(os.environ["WF_ARTIFACTS_DIR"] + "/a.bin", "wb").write(bytes(range(256)))\nprint(\'{"n": 1}\')';
        const result = await runner.run(step("python", code), undefined, (line) => lines.push(line));
        expect(result).toMatchObject({ ok: true, output: { n: 1 }, logs: ["working"], artifacts: [{ path: "a.bin", size: 256 }] });
        expect(result.artifacts[0]?.content).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
        expect(lines[0]).toBe("working");
        expect(await runner.run(step("javascript", "return input.n + 1", { input: { n: 1 } }))).toMatchObject({ ok: true, output: 2 });
        expect(await runner.run(step("bash", "sleep 5", { timeoutMs: 200 }))).toMatchObject({ ok: false, timedOut: true });
      } finally {
        await runner.close();
      }
    });

    it("fails clearly when the socket is not there", async () => {
      await expect(createCodeRunner({ socket: join(scratch, "nothing.sock") })).rejects.toThrow(/sandbox runner at .* is unreachable/);
    });
  });
});
