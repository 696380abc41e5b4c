import { readFile } from "node:fs/promises";
import { waitFor } from "@wf/shared/testing";
import { readdirSync, readFileSync } from "node:fs";

/** Whether a process still runs; a zombie (dead, not yet reaped by an init that may never reap it) does not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return processState(pid) !== "Z";
  } catch {
    return false;
  }
}

/** Live child processes of `parent` whose command line contains `needle`. */
export function childProcesses(parent: number, needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ppid === parent && cmdline.includes(needle) && isAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

function processState(pid: number): string | undefined {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
}

/** Pids a step wrote to `file`, one a line, once it has written `count` of them. */
export async function pidsIn(file: string, count: number): Promise<number[]> {
  return waitFor(
    async () => {
      const pids = (await readFile(file, "utf8")).split("\n").filter(Boolean).map(Number);
      return pids.length >= count && pids;
    },
    { what: `${count} pids in ${file}` },
  );
}
