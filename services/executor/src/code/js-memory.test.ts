import { readFileSync } from "node:fs";
import { procStatAt, runnerBundles, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { JS_SHARES, runnerBounds } from "./js-bounds";
import { descendants, JS_HOST_PROCESS, RUNNER_PROCESS, step } from "./testing/processes";

const MB = 1024 * 1024;
const HEAP_MB = 128;

/** A /proc/<pid>/status field in bytes: VmRSS now, VmHWM the most it ever was. */
function memory(pid: number, field: "VmRSS" | "VmHWM"): number {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(kb![1]) * 1024;
}

/** A process's real, effective, saved and filesystem uids. */
function uids(pid: number): number[] {
  return /^Uid:\s+(.*)$/m
    .exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]!
    .trim()
    .split(/\s+/)
    .map(Number);
}

/** A process's cgroup paths, by controller. */
function cgroups(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/cgroup`, "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(":"))
      .map(([, names, path]) => [names!, path!]),
  );
}

describe("JavaScript steps' memory, all of it counted", () => {
  let runner: CodeRunner;
  /** The JavaScript host's: the steps' memory is its. */
  let pid: number;
  let runnerPid: number;
  beforeAll(async () => {
    runner = await createCodeRunner({ jsMemoryLimitMb: HEAP_MB, pool: 1, ...runnerBundles() });
    // Warm: the runner's realms made, its first steps run.
    await Promise.all(
      Array.from({ length: 4 }, () => runner.run(step("javascript", "return new Uint8Array(1024).length"))),
    );
    [runnerPid] = descendants(process.pid, RUNNER_PROCESS) as [number];
    [pid] = descendants(runnerPid, JS_HOST_PROCESS) as [number];
  });
  afterAll(() => runner.close());

  it("refuses WebAssembly, whose memory no isolate counts: asking for 2 GiB fails and the runner's memory stays put", async () => {
    const baseline = memory(pid, "VmRSS");
    const code = `
      const held = [];
      for (let k = 0; k < 2; k++) {
        const m = new WebAssembly.Memory({ initial: 16384 });
        const bytes = new Uint8Array(m.buffer);
        for (let i = 0; i < bytes.length; i += 4096) bytes[i] = 1;
        held.push(m);
      }
      return held.length;`;
    const result = await runner.run(step("javascript", code));
    expect(!result.ok && result.error).toBe(
      "ReferenceError: WebAssembly is not available in JavaScript steps: its memory would be outside the step's memory limit (line 4)",
    );
    await waitFor(() => memory(pid, "VmRSS") < baseline + 64 * MB, {
      timeoutMs: 5_000,
      what: "the runner's memory back under its baseline + 64 MB",
    });
  });

  it("runs the JavaScript host under a uid of its own, never root", () => {
    const [runnerUid] = uids(runnerPid);
    expect(runnerUid).toBe(0);
    expect(new Set(uids(pid)).size).toBe(1);
    const [hostUid] = uids(pid);
    // The second uid of the runner's block of WF_SANDBOX_UIDS (0x70000000 and up): the zygote has the first.
    expect(hostUid).toBeGreaterThanOrEqual(0x70000000 + 1);
    expect((hostUid! - 0x70000000) % 1025).toBe(1);
    expect(/^Groups:\s*$/m.test(readFileSync(`/proc/${pid}/status`, "utf8")), "no supplementary groups").toBe(true);
  });

  it("runs the runner and its JavaScript host in memory and cpu cgroups of their own, bounding the isolates whatever their accounting misses", () => {
    const paths = cgroups(pid);
    expect(cgroups(runnerPid)).toEqual(paths);
    expect(paths.memory).toMatch(/\/wf-sandbox\/\d+\/runner$/);
    expect(paths.cpu).toMatch(/\/wf-sandbox\/\d+\/runner$/);
    const limit = Number(readFileSync(`/sys/fs/cgroup/memory${paths.memory}/memory.limit_in_bytes`, "utf8"));
    expect(limit).toBe(runnerBounds().memoryMb * MB);
    expect(runnerBounds().memoryMb).toBe(JS_SHARES.limit * HEAP_MB + 512);
  });

  it("holds one owner's 16 concurrent steps of 120 MB of array buffers each to its share of the runner's isolates", async () => {
    const before = memory(pid, "VmHWM");
    const code =
      "const held = []; for (let i = 0; i < 120; i++) held.push(new Uint8Array(1024 * 1024).fill(1)); return held.length;";
    const results = await Promise.all(
      Array.from({ length: 16 }, () => runner.run(step("javascript", code, { owner: "fan-out", ownerPlan: "free" }))),
    );
    expect(results.map((r) => (r.ok ? r.output : r.error))).toEqual(Array<number>(16).fill(120));
    // The runner's peak: its share (free: a quarter of its isolates) of 120 MB each, a step's worth of slack, and
    // 16 MB for what the isolates and the host hold of their own (seen: 0.13 MB past the first two once), where each
    // step in an isolate of its own took 16 x 120 MB, and one isolate past its share would take 120 MB more.
    const share = JS_SHARES.share("free");
    expect(memory(pid, "VmHWM") - before).toBeLessThan((share + 1) * HEAP_MB * MB + 16 * MB);
    expect(memory(pid, "VmHWM")).toBeLessThan(runnerBounds().memoryMb * MB);
  });

  it("fails the runs of a JavaScript host that dies (as the memory cgroup's OOM killer would kill it) and starts another for the next", async () => {
    const cpuTicks = (): number => {
      const { fields } = procStatAt(`/proc/${pid}/stat`)!;
      return Number(fields[11]) + Number(fields[12]);
    };
    const idle = cpuTicks();
    const running = runner.run(step("javascript", "for (;;) {}", { timeoutMs: 30_000 }));
    await waitFor(() => cpuTicks() - idle >= 20, { timeoutMs: 10_000, what: "the host spinning" });
    process.kill(pid, "SIGKILL");
    const result = await running;
    expect(!result.ok && result.error).toMatch(/^the JavaScript host process exited unexpectedly \(SIGKILL\)/);
    const next = await runner.run(step("javascript", "return 6 * 7"));
    expect(next.ok && next.output).toBe(42);
    const [host] = descendants(runnerPid, JS_HOST_PROCESS) as [number];
    expect(host).not.toBe(pid);
    expect(uids(host)[0]).not.toBe(0);
    pid = host;
  });
});
