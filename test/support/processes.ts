import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { entryArgs } from "./built-entries";
import { EGRESS_TEST_ALLOWANCE } from "./egress-allowance";
import { ONE_SANDBOX_RUNNER } from "./sandbox-pool";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ServiceProcess {
  readonly pid: number;
  readonly output: () => string;
  /** SIGKILL: a crash, nothing cleaned up. */
  kill(): Promise<void>;
  /**
   * SIGTERM, as an operator stops it: it stops what it started (npm start's nats-server). After
   * 10 s it is SIGKILLed; the answer tells which ended it.
   */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * SIGINT to its process group, as Ctrl-C in its terminal sends it (started with `ownGroup`). After 10 s it is
   * SIGKILLed; the answer tells which ended it.
   */
  interrupt(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

/**
 * How long a start may take: under the full suite's load on two cores an all-in-one process's
 * executor thread was seen taking 14 s to be ready (tsx loading its modules), 20 s in all.
 */
const READY_TIMEOUT_MS = 40_000;

/**
 * Starts one of the service entry points as its own process (as in production and `npm start`: from the test
 * run's bundles, or with `fromSource` a file no bundle is made of, through tsx) and resolves once it
 * logged `readyMessage`. Its ops listener takes a free port (`opsBase` reads it), so
 * that processes of parallel tests never contend for the default one. With `ownGroup` it leads a process group of its
 * own, as a terminal's foreground job does.
 */
export async function startServiceProcess(
  entry: string,
  env: Record<string, string>,
  readyMessages: string[],
  {
    timeoutMs = READY_TIMEOUT_MS,
    fromSource = false,
    ownGroup = false,
  }: { timeoutMs?: number; fromSource?: boolean; ownGroup?: boolean } = {},
): Promise<ServiceProcess> {
  const proc = spawn(process.execPath, entryArgs(ROOT, entry, { fromSource }), {
    cwd: ROOT,
    // The suite keeps every core busy: an executor thread at a lower priority would fall behind the test's bounds.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      LOG_LEVEL: "info",
      WF_OPS_PORT: "0",
      WF_EXECUTOR_NICE: "0",
      ...ONE_SANDBOX_RUNNER,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: ownGroup,
  });
  live.add(proc);
  let out = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Nobody holds a process that never got ready: it must not outlive the test.
      proc.kill("SIGKILL");
      reject(new Error(`${entry} not ready in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const check = () => {
      if (readyMessages.every((m) => out.includes(m))) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout!.on("data", check);
    proc.stderr!.on("data", check);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it was ready:\n${out}`));
    });
  });
  proc.removeAllListeners("exit");
  proc.once("exit", () => live.delete(proc));
  const end = async (signal: () => void): Promise<{ code: number | null; signal: NodeJS.Signals | null }> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once("exit", r));
      signal();
      const late = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(late);
    }
    return { code: proc.exitCode, signal: proc.signalCode };
  };
  return {
    pid: proc.pid!,
    output: () => out,
    async kill() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGKILL");
      await exited;
    },
    stop() {
      return end(() => proc.kill("SIGTERM"));
    },
    interrupt() {
      return end(() => process.kill(-proc.pid!, "SIGINT"));
    },
  };
}

export const ENTRIES = {
  allInOne: "services/all-in-one/src/main.ts",
  edge: "services/edge/src/main.ts",
  executor: "services/executor/src/main.ts",
  approvals: "services/approvals/src/main.ts",
  scheduler: "services/scheduler/src/main.ts",
  /** The standalone sandbox runner: needs WF_SANDBOX_SOCKET. */
  sandbox: "services/executor/src/sandbox-main.ts",
};

/**
 * An executor process for crash tests of parked executions, on the NATS server at `natsUrl`: its lease ends 1 s after
 * it dies, and a wait over 0.1 s parks.
 */
export function startParkingExecutor(natsUrl: string, ns: string): Promise<ServiceProcess> {
  return startServiceProcess(
    ENTRIES.executor,
    {
      NATS_URL: natsUrl,
      WF_NAMESPACE: ns,
      WF_EXEC_LEASE_MS: "1000",
      WF_HOLD_WAIT_MS: "100",
      PORT: "0",
      ...EGRESS_TEST_ALLOWANCE,
    },
    ["executor ready"],
  );
}

/** The base URL of a process's ops listener, from its `ops listening` log line. */
export function opsBase(proc: Pick<ServiceProcess, "output">): string {
  const m = /"msg":"ops listening"[^\n]*?"host":"([^"]+)","port":(\d+)/.exec(proc.output());
  if (!m) throw new Error(`no ops listener in the output:\n${proc.output()}`);
  return `http://${m[1]}:${m[2]}`;
}
