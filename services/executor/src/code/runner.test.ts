import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sleepers, sleepMarker, TEST_BUILD_ENV, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodeRunner } from "./index";
import { resolvePython } from "./languages";
import { allGone, descendants, isAlive, JS_HOST_PROCESS, RUNNER_PROCESS, step, zygotes } from "./testing/processes";
import { standaloneRunner as startStandalone } from "./testing/standalone-runner";

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
      // Two at once: the second goes to the runner the first left idle.
      const markers = [sleepMarker(), sleepMarker()];
      const lines: string[] = [];
      const runs = markers.map((m) =>
        runner.run(step("bash", `sleep ${m} & echo started; wait`, { timeoutMs: 1500 }), undefined, (l) =>
          lines.push(l),
        ),
      );
      await waitFor(() => markers.every((m) => sleepers(m).length === 1), { what: "both steps to run" });
      const ranBy = markers.map((m) =>
        runners.find((r) => descendants(r, new RegExp(`sleep ${m.replace(".", "\\.")}`)).length > 0),
      );
      expect(new Set(ranBy).size).toBe(2);
      expect(ranBy).not.toContain(undefined);
      for (const result of await Promise.all(runs)) expect(result).toMatchObject({ ok: false, timedOut: true });
    } finally {
      await runner.close();
    }
  });

  it("starts its runners at the first use with start: first-use, telling their isolation then", async () => {
    const told: unknown[] = [];
    const runner = await createCodeRunner({ pool: 1, start: "first-use", onStarted: (i) => told.push(i) });
    try {
      expect(descendants(process.pid, RUNNER_PROCESS)).toEqual([]);
      expect(runner.isolation()).toBeUndefined();
      expect(told).toEqual([]);
      // A process opened first: what it is written before the runner is up reaches it, in order.
      let out = "";
      const cat = runner.open({ ...step("cli", ""), command: ["cat"] }, (chunk) => (out += chunk));
      cat.write("first ");
      cat.write("second");
      cat.end();
      expect(await cat.result).toMatchObject({ ok: true });
      expect(out).toBe("first second");
      expect(descendants(process.pid, RUNNER_PROCESS)).toHaveLength(1);
      expect(told).toEqual([runner.isolation()]);
      expect(runner.isolation()).toMatchObject({ filesystem: "sandbox" });
      expect(await runner.run(step("javascript", "return 6 * 7"))).toMatchObject({ ok: true, output: 42 });
      expect(told).toHaveLength(1);
    } finally {
      await runner.close();
    }
    expect(descendants(process.pid, RUNNER_PROCESS)).toEqual([]);
    // Closed before any use: nothing was started, nothing is left.
    const unused = await createCodeRunner({ pool: 1, start: "first-use" });
    await unused.close();
    expect(descendants(process.pid, RUNNER_PROCESS)).toEqual([]);
  });

  it("fails the runs in flight when a runner process dies, and starts a new one", async () => {
    const runner = await createCodeRunner({ pool: 1 });
    try {
      const [pid] = descendants(process.pid, RUNNER_PROCESS);
      if (pid === undefined) throw new Error("no runner process");
      await waitFor(() => descendants(pid, JS_HOST_PROCESS).length === 1, { what: "the runner's JavaScript host" });
      const [jsHost] = descendants(pid, JS_HOST_PROCESS) as [number];
      const marker = sleepMarker();
      const js = runner.run(step("javascript", "for (;;) {}", { timeoutMs: 60_000 }));
      const bash = runner.run(step("bash", `sleep ${marker}`, { timeoutMs: 60_000 }));
      await waitFor(() => sleepers(marker).length === 1, { what: "the bash step to run" });
      process.kill(pid, "SIGKILL");
      for (const result of await Promise.all([js, bash])) {
        expect(!result.ok && result.error).toMatch(/^the sandbox runner process exited unexpectedly \(SIGKILL\)/);
      }
      // Its zygote reads the end of its input and kills its steps.
      await waitFor(() => sleepers(marker).length === 0, { what: "the step to be gone" });
      expect(await runner.run(step("javascript", "return 'again'"))).toMatchObject({ ok: true, output: "again" });
      expect(await runner.run(step("bash", "echo again"))).toMatchObject({ ok: true, output: "again" });
      expect(isAlive(pid)).toBe(false);
      expect(descendants(process.pid, RUNNER_PROCESS)).toHaveLength(1);
      // Its JavaScript host, orphaned, stopped its run and left with it.
      await allGone([jsHost]);
    } finally {
      await runner.close();
    }
  });

  it("asks python3 once for all the runners it forks, restarts included, in the runners' directory", async () => {
    // A python3 ahead of the real one that notes each call and where it was made, as a version manager's shim is called.
    const bin = join(scratch, "counting-bin");
    const calls = join(scratch, "python3-calls");
    await mkdir(bin);
    const real = (await resolvePython()).executable;
    await writeFile(join(bin, "python3"), `#!/bin/sh\necho "$PWD" >> ${calls}\nexec ${real} "$@"\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const runner = await createCodeRunner({ pool: 2 });
      try {
        const runners = descendants(process.pid, RUNNER_PROCESS);
        expect(runners).toHaveLength(2);
        process.kill(runners[0]!, "SIGKILL");
        const executions = ["a", "b", "c", "d", "e", "f", "g", "h"];
        const round = () =>
          Promise.all(executions.map((execution) => runner.run(step("python", "print(7)", { execution }))));
        // Runs sent to the killed runner before its end was seen fail; the next ones go to the one forked in its place.
        for (const result of await round())
          expect(result.ok ? "ok" : result.error).toMatch(
            /^(ok$|the sandbox runner process exited unexpectedly \(SIGKILL\))/,
          );
        for (const result of await round())
          expect(result, JSON.stringify(result)).toMatchObject({ ok: true, output: 7 });
        expect(descendants(process.pid, RUNNER_PROCESS).filter((pid) => pid !== runners[1])).toHaveLength(1);
      } finally {
        await runner.close();
      }
    } finally {
      process.env.PATH = path;
    }
    const asked = readFileSync(calls, "utf8").trim().split("\n");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("wf-code-");
  });

  it("forks the runner from bundles when told where they are (WF_SANDBOX_BUNDLE_DIR), and says so when they are not", async () => {
    // Vitest's global setup bundles the entry points there (test/support/test-build.ts).
    const bundles = process.env[TEST_BUILD_ENV]!;
    const runner = await createCodeRunner({ pool: 1, bundleDir: bundles });
    try {
      expect(await runner.run(step("javascript", "return 2"))).toMatchObject({ ok: true, output: 2 });
      expect(await runner.run(step("bash", "echo 3"))).toMatchObject({ ok: true, output: 3 });
      const [pid] = descendants(process.pid, /sandbox-process\.js/);
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      expect(command).toContain(join(bundles, "sandbox-process.js"));
      expect(command.join(" ")).not.toContain("tsx");
      // Its JavaScript host is the bundle beside it.
      const host = new RegExp(join(bundles, "js-host-process.js").replaceAll(".", "\\."));
      expect(descendants(pid!, host)).toHaveLength(1);
      // None from the sources.
      expect(descendants(process.pid, /sandbox-process\.ts/)).toEqual([]);
    } finally {
      await runner.close();
    }
    const missing = await createCodeRunner({ pool: 1, bundleDir: join(scratch, "no-bundles") });
    try {
      const result = await missing.run(step("javascript", "return 2"));
      expect(!result.ok && result.error).toMatch(/^the sandbox runner process exited unexpectedly/);
    } finally {
      await missing.close();
    }
  });

  it("close() ends the runs in flight, its processes and its directory", async () => {
    const tmpRoot = join(scratch, "root");
    await mkdir(tmpRoot);
    const runner = await createCodeRunner({ tmpRoot });
    const markers = [sleepMarker(), sleepMarker()];
    const base = { vars: {}, input: null, timeoutMs: 60_000 };
    const runs = [
      runner.run({ ...base, language: "javascript", code: "for (;;) {}" }),
      runner.run({ ...base, language: "bash", code: `sleep ${markers[0]}` }),
      runner.run({
        ...base,
        language: "python",
        code: `import subprocess\nsubprocess.run(["sleep", "${markers[1]}"])`,
      }),
    ];
    await waitFor(() => markers.every((m) => sleepers(m).length === 1), { what: "the steps to run" });
    const processes = [
      ...descendants(process.pid, RUNNER_PROCESS),
      ...descendants(process.pid, JS_HOST_PROCESS),
      ...zygotes(),
    ];
    expect(processes.length).toBeGreaterThanOrEqual(4);
    await runner.close();
    for (const result of await Promise.all(runs)) expect(result).toMatchObject({ ok: false });
    await allGone(processes);
    await waitFor(() => markers.every((m) => sleepers(m).length === 0), { what: "the steps' processes to be gone" });
    expect(await readdir(tmpRoot)).toEqual([]);
    await expect(runner.run({ ...base, language: "javascript", code: "return 1" })).rejects.toThrow(/closed/);
  });

  const standaloneRunner = (name: string, prefix: string[] = [], env: Record<string, string> = {}) =>
    startStandalone(scratch, name, prefix, env);

  describe("with a standalone sandbox runner", () => {
    let sandbox: Awaited<ReturnType<typeof standaloneRunner>>;
    beforeAll(async () => {
      sandbox = await standaloneRunner("sandbox");
    });
    afterAll(async () => {
      await sandbox.stop();
    });

    it("runs steps through its socket, logs streamed and artifacts returned", async () => {
      const runner = await createCodeRunner({ socket: sandbox.socket });
      try {
        expect(runner.isolation()).toMatchObject({
          network: "proxy",
          filesystem: "sandbox",
          uids: "per step",
          seccomp: true,
        });
        expect(descendants(process.pid, RUNNER_PROCESS)).toEqual([]);
        const lines: string[] = [];
        const code =
          'import os\nprint("working")\nopen(os.environ["WF_ARTIFACTS_DIR"] + "/a.bin", "wb").write(bytes(range(256)))\nprint(\'{"n": 1}\')';
        const result = await runner.run(step("python", code), undefined, (line) => lines.push(line));
        expect(result).toMatchObject({
          ok: true,
          output: { n: 1 },
          logs: ["working"],
          artifacts: [{ path: "a.bin", size: 256 }],
        });
        expect(result.artifacts[0]?.content).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
        expect(lines[0]).toBe("working");
        expect(await runner.run(step("javascript", "return input.n + 1", { input: { n: 1 } }))).toMatchObject({
          ok: true,
          output: 2,
        });
        // Through the runner's relay to its JavaScript host, which passes the input's and the output's texts on.
        const input = { text: "a\nb\u2028c ünï 🚀", big: "z".repeat(256 * 1024) };
        expect(await runner.run(step("javascript", "return input", { input }))).toMatchObject({
          ok: true,
          output: input,
        });
        expect(await runner.run(step("bash", "sleep 5", { timeoutMs: 200 }))).toMatchObject({
          ok: false,
          timedOut: true,
        });
      } finally {
        await runner.close();
      }
    });

    it("gives each step the limits of its own client, whatever the step before had", async () => {
      // Two executors with other limits, one owner: a step's process made ahead for the shape of
      // the step before is not the next one's when the shapes differ.
      const [small, large] = await Promise.all(
        [16, 48].map((tmpMb) => createCodeRunner({ socket: sandbox.socket, limits: { tmpMb } })),
      );
      try {
        const code = 'import os\nst = os.statvfs("/tmp")\nprint(st.f_blocks * st.f_frsize // 2**20)';
        const sizes: unknown[] = [];
        for (const runner of [small, large, large, small, small, large]) {
          const result = await runner!.run(step("python", code, { owner: "one-owner" }));
          sizes.push(result.ok ? result.output : result.error);
        }
        expect(sizes).toEqual([16, 48, 48, 16, 16, 48]);
      } finally {
        await Promise.all([small!.close(), large!.close()]);
      }
    });

    it("fails clearly when the socket is not there", async () => {
      await expect(createCodeRunner({ socket: join(scratch, "nothing.sock") })).rejects.toThrow(
        /sandbox runner at .* is unreachable/,
      );
    });

    it("started at first use, fails a run while the socket is not there and connects for the next", async () => {
      const later = join(scratch, "later.sock");
      const runner = await createCodeRunner({ socket: later, start: "first-use" });
      try {
        await expect(runner.run(step("javascript", "return 1"))).rejects.toThrow(/sandbox runner at .* is unreachable/);
        await symlink(sandbox.socket, later);
        expect(await runner.run(step("javascript", "return 1"))).toMatchObject({ ok: true, output: 1 });
      } finally {
        await runner.close();
      }
    });
  });

  // A runner in a user namespace of its own that maps only its root cannot give files to the
  // sandbox's uids, as a runner that is not root could not: the sandbox cannot start there.
  describe("where the sandbox cannot start", () => {
    const UNPRIVILEGED = ["unshare", "--user", "--map-root-user"];

    it("refuses steps other than JavaScript and TypeScript, saying why and what would run them", async () => {
      const sandbox = await standaloneRunner("refusing", UNPRIVILEGED);
      const runner = await createCodeRunner({ socket: sandbox.socket });
      try {
        expect(runner.isolation()).toMatchObject({
          processes: "refused",
          reason: expect.stringMatching(/WF_SANDBOX_UIDS.*cannot own files here/),
        });
        const bash = await runner.run(step("bash", "echo should not run"));
        expect(!bash.ok && bash.error).toMatch(
          /^code steps in bash need the sandbox, which cannot start on this runner: .*\(WF_SANDBOX_UNSAFE=1 runs them without it\)$/,
        );
        expect(await runner.run(step("javascript", "return 1"))).toMatchObject({ ok: true, output: 1 });
      } finally {
        await runner.close();
        await sandbox.stop();
      }
    });

    it("runs them on the host when the operator opts in (WF_SANDBOX_UNSAFE=1), and says so", async () => {
      const sandbox = await standaloneRunner("unsafe", UNPRIVILEGED, { WF_SANDBOX_UNSAFE: "1" });
      const runner = await createCodeRunner({ socket: sandbox.socket });
      try {
        expect(runner.isolation()).toMatchObject({
          processes: "unsafe",
          network: "host",
          filesystem: "host",
          uids: "none",
          seccomp: true,
        });
        const result = await runner.run(
          step("bash", 'echo hi > "$WF_ARTIFACTS_DIR/a.txt"; test -d /home && echo "sees the host"'),
        );
        expect(result).toMatchObject({ ok: true, output: "sees the host", artifacts: [{ path: "a.txt", size: 3 }] });
        // The seccomp filter and the limits still hold.
        expect(
          await runner.run(step("python", "import ctypes\nprint(ctypes.CDLL(None).unshare(0x10000000))")),
        ).toMatchObject({ ok: true, output: -1 });
      } finally {
        await runner.close();
        await sandbox.stop();
      }
    });
  });
});
