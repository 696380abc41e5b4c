import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

const SCHED_BATCH = 3;
const SCHED_IDLE = 5;

/** A thread's or process's scheduling policy: field 41 of its stat. */
const policyOf = (stat: string): number => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[38]);

/**
 * A worker thread sets `policy` on itself with scheduleThisThread, then reports its own policy
 * and that of a process it starts afterwards (the code runners' case).
 */
async function inWorker(policy: "batch" | "idle"): Promise<{ refused: string | null; thread: number; child: number }> {
  const module = new URL("./thread-scheduling.ts", import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const { readFileSync } = require("node:fs");
    const { execFileSync } = require("node:child_process");
    import(workerData.module).then(({ scheduleThisThread }) => {
      const refused = scheduleThisThread(workerData.policy);
      const thread = readFileSync("/proc/thread-self/stat", "utf8");
      const child = execFileSync("cat", ["/proc/self/stat"], { encoding: "utf8" });
      parentPort.postMessage({ refused, thread, child });
    });
  `;
  const stats = await new Promise<{ refused: string | null; thread: string; child: string }>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { module, policy } });
    worker.once("message", (m) => {
      resolve(m as { refused: string | null; thread: string; child: string });
      void worker.terminate();
    });
    worker.once("error", reject);
  });
  return { refused: stats.refused, thread: policyOf(stats.thread), child: policyOf(stats.child) };
}

describe("scheduleThisThread", () => {
  it.each([
    ["batch", SCHED_BATCH],
    ["idle", SCHED_IDLE],
  ] as const)(
    "puts the calling thread alone under SCHED_%s, and the processes it starts after",
    async (policy, expected) => {
      expect(await inWorker(policy)).toEqual({ refused: null, thread: expected, child: expected });
      // The thread that asked for it, not the process's other threads.
      expect(policyOf(readFileSync("/proc/thread-self/stat", "utf8"))).toBe(0);
      expect(policyOf(execFileSync("cat", ["/proc/self/stat"], { encoding: "utf8" }))).toBe(0);
    },
  );
});
