import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { waitFor } from "@wf/shared/testing";
import type { CodeLanguage, CodeRequest } from "./types";

export function step(language: CodeLanguage, code: string, extra: Partial<CodeRequest> = {}): CodeRequest {
  return { language, code, vars: {}, input: null, timeoutMs: 10_000, ...extra };
}

/** Whether a process still runs; a zombie (dead, not yet reaped by an init that may never reap it) does not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return stat(pid).state !== "Z";
  } catch {
    return false;
  }
}

/** Live descendants of `ancestor` whose command line (its arguments joined by spaces) matches `pattern`. */
export function descendants(ancestor: number, pattern: RegExp): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parents.set(Number(entry), stat(Number(entry)).ppid);
    } catch {
      // The process ended while being read.
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === ancestor) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    try {
      return descends(pid) && pattern.test(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")) && isAlive(pid);
    } catch {
      return false;
    }
  });
}

/** The sandbox runner processes started by this process. */
export const RUNNER_PROCESS = /sandbox-process\.ts/;
/** Zygotes (the Python processes, not the bubblewrap ones that start them). */
export const ZYGOTE_PROCESS = /^\S*python\S* -I \S*zygote\.py/;

function stat(pid: number): { state: string; ppid: number } {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: state ?? "", ppid: Number(ppid) };
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

export async function allGone(pids: number[]): Promise<void> {
  for (const pid of pids) await waitFor(() => !isAlive(pid), { what: `process ${pid} to be gone` });
}
