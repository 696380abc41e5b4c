import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { waitFor } from "@wf/testing";
import { descendants } from "@wf/executor/testing";
import { ENTRIES } from "../support/processes";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The all-in-one service as an operator runs `npm start`: in a terminal of its own. */
export interface TerminalService {
  /** The service's process (node), the session leader of the terminal. */
  readonly pid: number;
  /** Everything the terminal showed: the service's logs and whatever else reached it. */
  readonly output: () => string;
  /**
   * SIGTERM, as an operator's kill would stop it: it stops its nats-server too. One that has not
   * stopped 10 s later is killed with its process group, nats-server included.
   */
  stop(): Promise<void>;
}

/** Terminals still open, with their service's pid once known. */
const live = new Map<ChildProcess, number | undefined>();
process.once("exit", () => {
  // SIGTERM to a service lets it stop its nats-server; killing `script` would leave that running.
  for (const [terminal, pid] of live) {
    if (pid === undefined) terminal.kill("SIGKILL");
    else signal(pid, "SIGTERM");
  }
});

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone already.
  }
}

const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Starts `services/all-in-one/src/main.ts` (what `npm start` runs) with a pseudo-terminal as its
 * controlling terminal, made by util-linux `script`: the terminal is part of what a step must
 * not reach, and a test whose service has only pipes could never see it reached.
 */
export async function startServiceInTerminal(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<TerminalService> {
  const command = `exec ${quote(process.execPath)} --import tsx ${ENTRIES.allInOne}`;
  const proc = spawn("script", ["--quiet", "--flush", "--return", "--command", command, "/dev/null"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      SHELL: "/bin/sh",
      LOG_LEVEL: "info",
      WF_OPS_PORT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.set(proc, undefined);
  let out = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  void exited.then(() => live.delete(proc));
  try {
    await waitFor(() => out.includes("[wf] ready") || proc.exitCode !== null, {
      timeoutMs,
      intervalMs: 50,
      what: "the service to be ready",
    });
  } catch (err) {
    proc.kill("SIGKILL");
    throw new Error(`${String(err)}:\n${out}`);
  }
  if (!out.includes("[wf] ready")) throw new Error(`the service exited before it was ready:\n${out}`);
  const [pid] = descendants(proc.pid!, /all-in-one\/src\/main\.ts/);
  if (pid === undefined) throw new Error("the service's process is not the terminal's child");
  live.set(proc, pid);
  return {
    pid,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      signal(pid, "SIGTERM");
      // The service leads the terminal's session and process group (`script` made them for it).
      const late = setTimeout(() => signal(-pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(late);
    },
  };
}
