import type { Readable } from "node:stream";
import type { Plan } from "@wf/shared/auth";

export type CodeLanguage = "python" | "javascript" | "typescript" | "bash" | "ruby" | "lua" | "cli";

/** JavaScript and TypeScript run in isolates, in a runner's JavaScript host; every other language as a process. */
export function runsInIsolate(language: CodeLanguage): boolean {
  return language === "javascript" || language === "typescript";
}

export const CODE_LANGUAGES: readonly CodeLanguage[] = [
  "python",
  "javascript",
  "typescript",
  "bash",
  "ruby",
  "lua",
  "cli",
];

export interface CodeRequest {
  language: CodeLanguage;
  /** Source code, for every language but `cli`. */
  code?: string;
  /** argv of a `cli` step, run without a shell. */
  command?: string[];
  /** Workflow variables: `WF_VAR_<name>`; `vars` in JavaScript scope. */
  vars: Record<string, unknown>;
  /** The step's evaluated input, or its JSON text (JsonText): `WF_INPUT` (JSON); `input` in JavaScript scope. */
  input: unknown;
  /** The current `foreach` item: `WF_ITEM` (JSON) and `WF_ITEM_<field>`; `item` in JavaScript scope. */
  item?: unknown;
  timeoutMs: number;
  /**
   * The step's way out (JavaScript has none either way): none when unset or false; otherwise
   * through the egress proxy, to what the operator's policy allows, narrowed to `allow` (host
   * patterns) when given.
   */
  network?: boolean | { allow: string[] };
  /** The owner's narrowing of `network` (its account's egress list), when it has one. */
  ownerAllow?: string[];
  /** Whose step this is (the execution's owner): steps of different owners never share a zygote. */
  owner?: string;
  /** The owner's plan: its share of the runners' pools (pool-shares.ts). */
  ownerPlan?: Plan;
  /** The execution the step belongs to: its steps go to one runner. */
  execution?: string;
}

/** A file the step wrote into WF_ARTIFACTS_DIR (JavaScript: `artifacts.write`). */
export interface Artifact {
  /** Relative to the artifacts directory, `/`-separated. */
  path: string;
  size: number;
  content: Buffer;
}

/** A connection the step's egress proxy refused (with no destination: one over its cap of connections). */
export interface EgressRefused {
  host?: string;
  port?: number;
  reason: string;
}

/** The connections a step's egress proxy refused: the first ones, and how many in all. */
export interface Refusals {
  first: EgressRefused[];
  total: number;
}

export type CodeResult =
  | {
      ok: true;
      output: unknown;
      /**
       * The output's JSON text as its runner wrote it (its JSON.stringify, or its JavaScript host's), where it came as
       * text (json-text.ts), beside the value parsed from it: for the executor to measure and pass on without
       * serialising the value again.
       */
      outputJson?: string;
      logs: string[];
      artifacts: Artifact[];
      durationMs: number;
      refused?: Refusals;
    }
  | {
      ok: false;
      error: string;
      logs: string[];
      artifacts: Artifact[];
      durationMs: number;
      timedOut: boolean;
      refused?: Refusals;
    };

/** What a step's processes are confined by on the sandbox runner, for the service to log at start-up. */
export interface Isolation {
  /**
   * How steps other than JavaScript and TypeScript run: in the sandbox; on the host without it
   * (an operator's opt-in, WF_SANDBOX_UNSAFE=1, where the sandbox cannot start); or not at all.
   */
  processes: "sandbox" | "unsafe" | "refused";
  /** Why the sandbox cannot start here, when it cannot. */
  reason?: string;
  /** `proxy`: a network namespace per step, its only way out the egress proxy; `host`: the host's network. */
  network: "proxy" | "host" | "none";
  /** `sandbox`: only `readable`, read-only, and the step's own directories; `host`: the host's file system. */
  filesystem: "sandbox" | "host" | "none";
  /** The host paths a step can read (besides its own /step, /tmp and /dev/shm). */
  readable: string[];
  /** `per step`: each running step its own unprivileged uid; `none`: the runner's. */
  uids: "per step" | "none";
  /** Whether system calls no step needs are refused (seccomp). */
  seccomp: boolean;
  /** The limits in force, each with its mechanism, e.g. "processes per step (pids cgroup)". */
  limits: string[];
}

/** The isolation of a runner whose process steps cannot run, saying why; `limits`: what holds all the same. */
export function refusedIsolation(reason: string, limits: string[] = []): Isolation {
  return {
    processes: "refused",
    reason,
    network: "none",
    filesystem: "none",
    readable: [],
    uids: "none",
    seccomp: false,
    limits,
  };
}

/** Per-step limits, sent with every run: a remote runner applies its clients' limits. */
export interface SandboxLimits {
  /** Heap of a JavaScript or TypeScript step's isolate. */
  jsMemoryMb: number;
  /** Memory of a step, all its processes together (memory cgroup), and of each (RLIMIT_DATA). */
  memoryMb: number;
  /** CPUs a step may use at once (cpu cgroup). */
  cpus: number;
  /** Size of a step's private /tmp (and of its /dev/shm); their content counts as its memory. */
  tmpMb: number;
  /** Processes and threads of one step (a pids cgroup), also RLIMIT_NPROC where that applies. */
  processes: number;
  openFiles: number;
  /** Kept of stdout and of stderr each; the rest is cut, and the step's log says so. */
  outputBytes: number;
  artifactFiles: number;
  artifactFileBytes: number;
  artifactTotalBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  jsMemoryMb: 128,
  memoryMb: 512,
  cpus: 1,
  tmpMb: 256,
  processes: 256,
  openFiles: 256,
  outputBytes: 10 * 1024 * 1024,
  artifactFiles: 20,
  artifactFileBytes: 10 * 1024 * 1024,
  artifactTotalBytes: 50 * 1024 * 1024,
};

export type LogListener = (line: string) => void;

/** The stdin and stdout of an interactive process, on the runner's side. */
export interface Interactive {
  input: Readable;
  onStdout(data: string): void;
}

/** A process of the sandbox its caller talks to over stdin and stdout: a stdio MCP server. */
export interface InteractiveProcess {
  write(data: string): void;
  /** Closes its stdin. */
  end(): void;
  /** Ends it and everything it started; idempotent. */
  kill(): void;
  /** How it ended (its timeout included), with its stderr's lines as logs. */
  readonly result: Promise<CodeResult>;
}

export interface CodeRunner {
  /**
   * Never throws for user-code failures; an aborted run resolves `ok: false` quickly with its
   * processes killed. `onLog` receives the step's log lines as they are written.
   */
  run(req: CodeRequest, signal?: AbortSignal, onLog?: LogListener): Promise<CodeResult>;
  /**
   * Starts `req.command` (a `cli` request: an argv) in the sandbox, as a step would run, with
   * its stdin the caller's to write and its stdout passed to `onStdout` as it comes.
   */
  open(req: CodeRequest, onStdout: (chunk: string) => void): InteractiveProcess;
  /** The isolation of the runner(s), as reported when they started; none before (`start: "first-use"`). */
  isolation(): Isolation | undefined;
  /** Stops the local runner processes (and everything they run) or closes the remote connection. */
  close(): Promise<void>;
}

type WithoutDuration<T> = T extends unknown ? Omit<T, "durationMs"> : never;
/** A result as the sandbox runner produces it; `durationMs` is added by the client. */
export type RunResult = WithoutDuration<CodeResult>;

export class UnsupportedLanguageError extends Error {
  constructor(language: string) {
    super(`code steps in ${language} are not supported`);
    this.name = "UnsupportedLanguageError";
  }
}
