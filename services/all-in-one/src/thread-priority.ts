import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Gives the calling thread the nice value `nice`. On Linux a thread's nice value is its own
 * (setpriority with its thread id), and the processes it spawns inherit it. Returns why it
 * could not, or null.
 */
export function niceThisThread(nice: number): string | null {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return "no thread id in /proc/thread-self";
    setPriority(tid, nice);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
