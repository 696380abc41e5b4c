import { readdirSync, readFileSync } from "node:fs";

/**
 * A command line no other process has: a sandboxed step runs `sleep <marker>` so that a test
 * can find its processes from the host, where it sees every process, and prove them gone.
 */
export function sleepMarker(): string {
  return `${100 + Math.floor(Math.random() * 1e6) / 1e6}`;
}

/** Live (not zombie) host processes running `sleep <marker>`. */
export function sleepers(marker: string): number[] {
  return processesWithArg(marker);
}

/** Live (not zombie) host processes one of whose command-line arguments is `arg`. */
export function processesWithArg(arg: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(arg)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") found.push(Number(entry));
    } catch {
      // It ended while being read.
    }
  }
  return found;
}
