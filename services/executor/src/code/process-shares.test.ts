import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { DEFAULT_SANDBOX_SETTINGS } from "./sandbox-settings";
import { descendants, RUNNER_PROCESS, step } from "./testing/processes";
import { runnerBundles } from "@wf/testing";

const MB = 2 ** 20;

/** The memory cgroup of the steps of the runner `pid`, as the host mounts it. */
function stepsMemoryCgroup(pid: number): string {
  const line = readFileSync(`/proc/${pid}/cgroup`, "utf8")
    .split("\n")
    .find((l) => l.split(":")[1]?.split(",").includes("memory"));
  // The runner itself is in <its cgroup>/wf-sandbox/<pid>/runner; its steps in .../steps.
  return join("/sys/fs/cgroup/memory", line!.split(":")[2]!.replace(/\/runner$/, "/steps"));
}

describe("process steps: owners' turns and a memory bound for all of a runner's steps", () => {
  let runner: CodeRunner;
  let scratch: string;
  let pid: number;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "wf-process-shares-test-"));
    runner = await createCodeRunner({
      pool: 1,
      ...runnerBundles(),
      tmpRoot: scratch,
      sandbox: { ...DEFAULT_SANDBOX_SETTINGS, processSteps: { atOnce: 4, memoryMb: 200 } },
    });
    // The runner forks its zygotes at start: it is up once a step has run.
    expect(await runner.run(step("bash", "echo 1"))).toMatchObject({ ok: true });
    pid = descendants(process.pid, RUNNER_PROCESS)[0]!;
  });
  afterAll(async () => {
    await runner.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("serves another owner's step next while one owner's fan-out waits for its own turns", async () => {
    // Each step says when it started (ns): the order of the starts is the order of the turns.
    const run = async (owner: string) => {
      const r = await runner.run(step("bash", "date +%s%N; sleep 2", { owner, ownerPlan: "free" }));
      if (!r.ok) throw new Error(r.error);
      return { owner, startedAt: Number(r.output) };
    };
    // A zygote started for each first (idle ones are kept for owners to come): a turn, not a cold start, is measured.
    await run("flooder");
    await run("bystander");
    // Four times what the runner runs at once, then one step of someone else.
    const flood = Array.from({ length: 16 }, () => run("flooder"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const starts = (await Promise.all([...flood, run("bystander")])).sort((a, b) => a.startedAt - b.startedAt);
    const before = starts.findIndex((s) => s.owner === "bystander");
    console.log(`[process shares] the bystander's step started after ${before} of the flooder's 16`);
    // In turn: a slot of the second wave is its (after 4 or 5 on a quiet machine), or the reserve the flooder leaves
    // free (after its first 3); in one queue it starts after all 16. On a loaded machine it was seen as late as the
    // third wave (10): it must start before the last.
    expect(before).toBeGreaterThanOrEqual(3);
    expect(before).toBeLessThanOrEqual(12);
  });

  it("holds all of a runner's process steps to their memory bound: the biggest fails saying so, the others run on", async () => {
    const steps = stepsMemoryCgroup(pid);
    expect(Number(readFileSync(join(steps, "memory.limit_in_bytes"), "utf8"))).toBe(200 * MB);
    // Two steps of 150 MB each, each well under its own limit (512 MB), 300 MB together.
    const hold = "import time\nx = b'\\x01' * (150 * 2**20)\ntime.sleep(3)\nprint(1)";
    const results = await Promise.all(
      [1, 2].map((i) => runner.run(step("python", hold, { owner: `hog-${i}`, timeoutMs: 20_000 }))),
    );
    const failed = results.filter((r) => !r.ok);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const r of failed)
      expect(r).toMatchObject({
        error: expect.stringMatching(/reached the runner's bound of 200 MB for process steps/) as unknown,
      });
    expect(Number(readFileSync(join(steps, "memory.max_usage_in_bytes"), "utf8"))).toBeLessThanOrEqual(200 * MB);
    // The runner is unharmed: its next steps run.
    expect(await runner.run(step("python", "print(2)"))).toMatchObject({ ok: true, output: 2 });
    expect(await runner.run(step("javascript", "return 3"))).toMatchObject({ ok: true, output: 3 });
  });
});
