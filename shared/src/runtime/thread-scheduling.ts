import { spawnSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * A thread's CPU scheduling on Linux is its own (its nice value and policy are set by thread
 * id), and the processes it spawns inherit both. Each function returns why it could not, or null.
 */

/** Gives the calling thread the nice value `nice`. */
export function niceThisThread(nice: number): string | null {
  try {
    setPriority(threadId(), nice);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Linux scheduling policies for work that may wait. A SCHED_BATCH thread woken by another does not
 * preempt it but waits its turn: the executor and its runners wake each other a few times per step,
 * and under the default policy the executor spent a third of its time handed off inside its writes to
 * the runners. SCHED_IDLE threads run only on CPU time no other thread wants, whatever their nice value.
 */
export type ThreadPolicy = "batch" | "idle";

/** Puts the calling thread under `policy`. Node has no call for it: util-linux's chrt sets it (no privilege needed). */
export function scheduleThisThread(policy: ThreadPolicy): string | null {
  try {
    const chrt = spawnSync("chrt", [`--${policy}`, "--pid", "0", String(threadId())], {
      encoding: "utf8",
      timeout: 5_000,
    });
    if (chrt.error) return `chrt: ${chrt.error.message}`;
    return chrt.status === 0 ? null : `chrt exited with ${chrt.status ?? chrt.signal}: ${chrt.stderr.trim()}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function threadId(): number {
  // "<pid>/task/<tid>"
  const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
  if (!Number.isInteger(tid) || tid <= 0) throw new Error("no thread id in /proc/thread-self");
  return tid;
}
