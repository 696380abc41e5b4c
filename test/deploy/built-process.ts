import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { waitFor } from "@wf/testing";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

export interface BuiltProcess {
  readonly pid: number;
  output(): string;
  /** Resolves with the process's exit code. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** `node <file>` from the repository's root, as the image runs it: plain node, no flag, only `env`. */
export function startBuilt(file: string, args: string[], env: Record<string, string>): BuiltProcess {
  const proc = spawn(process.execPath, [file, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(proc);
  let out = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) =>
    proc.once("close", (code) => {
      live.delete(proc);
      resolve(code);
    }),
  );
  return {
    pid: proc.pid!,
    output: () => out,
    exited,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const late = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(late);
    },
  };
}

/** Polls (bounded) until the process's output matches `pattern`; its match. */
export async function outputMatch(p: BuiltProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  await waitFor(() => pattern.test(p.output()), { timeoutMs, what: `${pattern} in the output:\n${p.output()}` });
  return pattern.exec(p.output())!;
}

/** A process's command line, as every process on the host can read it. */
export function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
}

/** Every live process started, directly or not, by `pid`. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The parent is the 2nd field after the command's closing parenthesis.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone since the listing.
    }
  }
  const found: number[] = [];
  const visit = (parent: number): void => {
    for (const [child, p] of parents) {
      if (p !== parent) continue;
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}
