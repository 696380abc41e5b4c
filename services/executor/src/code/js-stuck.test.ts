import { mkdtemp, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerBundles, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRequest, CodeRunner } from "./index";
import { createCodeRunner, DEFAULT_LIMITS } from "./index";
import { JS_SHARES } from "./js-bounds";
import { STUCK_GRACE_MS } from "./js-run-clock";
import { RunnerConnection } from "./runner-connection";
import { descendants, JS_HOST_PROCESS, step } from "./testing/processes";
import { standaloneRunner } from "./testing/standalone-runner";

function js(code: string, extra: Partial<CodeRequest> = {}): CodeRequest {
  return step("javascript", code, extra);
}

/**
 * A default sort of 3 million numbers, which V8 cannot stop part-way: past its timeout its isolate is disposed, yet it
 * sorts on, for tens of seconds at a 128 MB heap (its strings' garbage), before its host hears of it.
 */
const SORT =
  "const a = []; for (let i = 0; i < 3_000_000; i++) a.push((i * 7919) % 1000003); a.sort(); return a.length";
/**
 * Longer than the array's making, so that the timeout comes in the sort. At 3 s, with the load average at 15 to 25, the
 * run was answered at 3.2 to 4.5 s: stopped while it made the array (1.1 s in plain Node at a load of 10).
 */
const SORT_TIMEOUT_MS = 6_000;

/** Busy for `ms`, the clock's time, not its CPU's. */
function busy(ms: number, output: string): string {
  return `const end = Date.now() + ${ms}; while (Date.now() < end) {} return ${JSON.stringify(output)}`;
}

describe("a JavaScript run that goes on past its timeout and grace", () => {
  let runner: CodeRunner;
  beforeAll(async () => {
    runner = await createCodeRunner({ jsMemoryLimitMb: 128, pool: 1, ...runnerBundles() });
    await runner.run(js("return 1"));
  });
  afterAll(() => runner.close());

  it("fails alone, as timed out: other owners' runs in flight on its host complete, and its owner's share stays charged", async () => {
    const [host] = descendants(process.pid, JS_HOST_PROCESS);
    const stuck = runner.run(js(SORT, { owner: "a", timeoutMs: SORT_TIMEOUT_MS }));
    // Going when the sort's grace ends.
    const others = Array.from({ length: 2 }, () =>
      runner.run(js(busy(SORT_TIMEOUT_MS + STUCK_GRACE_MS + 4_000, "b"), { owner: "b", timeoutMs: 30_000 })),
    );
    const result = await stuck;
    expect(result).toMatchObject({ ok: false, timedOut: true, error: "timed out after 6 s" });
    // Answered by the executor's clock, its grace over: its host had not, its isolate still sorting.
    expect(result.durationMs).toBeGreaterThanOrEqual(SORT_TIMEOUT_MS + STUCK_GRACE_MS);
    for (const other of await Promise.all(others)) expect(other).toMatchObject({ ok: true, output: "b" });

    // The sort still holds one of its owner's isolates: with the rest of its share busy, its next run waits for them.
    const order: string[] = [];
    const record = (result: Promise<{ ok: boolean }>, name: string): Promise<void> =>
      result.then((r) => void order.push(r.ok ? name : `${name} failed`));
    const share = JS_SHARES.share(undefined);
    const holders = Array.from({ length: share - 1 }, () =>
      record(runner.run(js(busy(1_500, "held"), { owner: "a" })), "held"),
    );
    const next = record(runner.run(js("return 'next'", { owner: "a" })), "next");
    const other = record(runner.run(js("return 'other'", { owner: "b" })), "other");
    await Promise.all([...holders, next, other]);
    expect(order.indexOf("other")).toBeLessThan(order.indexOf("held"));
    expect(order.indexOf("next")).toBeGreaterThan(order.indexOf("held"));
    expect(order).not.toContain("next failed");
    expect(order).not.toContain("held failed");
    // One host all along: it was never killed.
    expect(descendants(process.pid, JS_HOST_PROCESS)).toEqual([host]);
  }, 60_000);
});

describe("a JavaScript run stuck past its timeout and grace on a standalone runner", () => {
  let scratch: string;
  let sandbox: Awaited<ReturnType<typeof standaloneRunner>>;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "wf-js-stuck-"));
    sandbox = await standaloneRunner(scratch, "stuck");
  });
  afterAll(async () => {
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("keeps its slot in the executor until the runner's isolate comes back, as with a runner of its own", async () => {
    const conn = new RunnerConnection(createConnection(sandbox.socket), () => undefined);
    try {
      await conn.ready;
      const limits = { ...DEFAULT_LIMITS, jsMemoryMb: 128 };
      // Beside it, another owner's sort cancelled once it logs: in the sort, which V8 cannot stop part-way.
      const cancel = new AbortController();
      const sorting = SORT.replace("a.sort()", "console.log('sorting'); a.sort()");
      const cancelled = conn.run(js(sorting, { owner: "c", timeoutMs: 120_000 }), limits, cancel.signal, (line) => {
        if (line.includes("sorting")) cancel.abort();
      });
      const result = await conn.run(js(SORT, { owner: "a", timeoutMs: SORT_TIMEOUT_MS }), limits);
      expect(result).toMatchObject({ ok: false, timedOut: true, error: "timed out after 6 s" });
      expect(await cancelled).toMatchObject({ ok: false, error: "aborted" });
      // Sent after the stuck run's cancel and answered by the host, so after anything the runner said of the cancel.
      expect(await conn.run(js("return 'b'", { owner: "b" }), limits)).toMatchObject({ ok: true, output: "b" });
      // The sorts go on for tens of seconds: the timed-out run and the cancelled one still hold their slots here.
      expect(conn.busy).toBe(2);
      // Freed once the runner's host answers them, their isolates back.
      await waitFor(() => conn.busy === 0, { what: "the sorts' isolates to come back", timeoutMs: 120_000 });
    } finally {
      conn.fail(new Error("the test is over"));
    }
  }, 180_000);
});
