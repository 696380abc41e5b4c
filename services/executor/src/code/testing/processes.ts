import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { descendsFrom, procCmdline, procStatAt, procTable, waitFor } from "@wf/testing";
import type { CodeLanguage, CodeRequest } from "../types";

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
  const stat = procStatAt(`/proc/${pid}/stat`);
  return stat !== null && stat.state !== "Z";
}

/** Live descendants of `ancestor` whose command line (its arguments joined by spaces) matches `pattern`. */
export function descendants(ancestor: number, pattern: RegExp): number[] {
  const table = procTable();
  return [...table.keys()].filter(
    (pid) =>
      descendsFrom(pid, ancestor, table) &&
      pattern.test((procCmdline(pid) ?? "").replaceAll("\0", " ")) &&
      isAlive(pid),
  );
}

/** The sandbox runner processes started by this process: from their sources or from the test run's bundles. */
export const RUNNER_PROCESS = /sandbox-process\.[tj]s/;
/** The JavaScript hosts the runners started by this process started. */
export const JS_HOST_PROCESS = /js-host-process\.[tj]s/;
const ZYGOTE_COMMAND = /^\S*python\S* -I -B \/run\/wf\/lib\/main\.py/;

/** The zygotes started by this process (not the steps' processes forked from them, which share their command line). */
export function zygotes(): number[] {
  return descendants(process.pid, ZYGOTE_COMMAND).filter((pid) => {
    const parent = procStatAt(`/proc/${pid}/stat`)?.ppid;
    return parent !== undefined && /enter\.py/.test(procCmdline(parent) ?? "");
  });
}

/**
 * The directories of the steps running now under the zygotes `ancestor` started, as the host
 * reaches them: in the memory of each zygote's mount namespace, through the root of the process
 * that entered it.
 */
export function runDirs(ancestor = process.pid): string[] {
  return descendants(ancestor, /zygote\/enter\.py/).flatMap((pid) => {
    const runs = `/proc/${pid}/root/run/wf/runs`;
    try {
      return readdirSync(runs)
        .filter((name) => name.startsWith("run-"))
        .map((name) => `${runs}/${name}`);
    } catch {
      return [];
    }
  });
}

/**
 * The run directories that hold anything a step wrote: all but those of steps' processes made ahead
 * of their steps, which hold an empty `artifacts` directory only.
 */
export function writtenRunDirs(ancestor = process.pid): string[] {
  return runDirs(ancestor).filter((dir) => {
    try {
      return readdirSync(dir).join("/") !== "artifacts" || readdirSync(`${dir}/artifacts`).length > 0;
    } catch {
      return false;
    }
  });
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
