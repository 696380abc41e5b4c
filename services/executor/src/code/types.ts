export type CodeLanguage = "python" | "javascript" | "typescript" | "bash" | "ruby" | "lua" | "cli";

export const CODE_LANGUAGES: readonly CodeLanguage[] = ["python", "javascript", "typescript", "bash", "ruby", "lua", "cli"];

export interface CodeRequest {
  language: CodeLanguage;
  /** Source code, for every language but `cli`. */
  code?: string;
  /** argv of a `cli` step, run without a shell. */
  command?: string[];
  /** Workflow variables: `WF_VAR_<name>`; `vars` in JavaScript scope. */
  vars: Record<string, unknown>;
  /** The step's evaluated input: `WF_INPUT` (JSON); `input` in JavaScript scope. */
  input: unknown;
  /** The current `foreach` item: `WF_ITEM` (JSON) and `WF_ITEM_<field>`; `item` in JavaScript scope. */
  item?: unknown;
  timeoutMs: number;
  /** Whether the step's processes may use the network (JavaScript has none either way). */
  network?: boolean;
}

/** A file the step wrote into WF_ARTIFACTS_DIR (JavaScript: `artifacts.write`). */
export interface Artifact {
  /** Relative to the artifacts directory, `/`-separated. */
  path: string;
  size: number;
  content: Buffer;
}

export type CodeResult =
  | { ok: true; output: unknown; logs: string[]; artifacts: Artifact[]; durationMs: number }
  | { ok: false; error: string; logs: string[]; artifacts: Artifact[]; durationMs: number; timedOut: boolean };

/** What a step's processes are confined by on the sandbox runner, for the service to log at start-up. */
export interface Isolation {
  network: "namespace" | "none";
  filesystem: "bubblewrap" | "none";
  /** The limits in force, each with its mechanism, e.g. "processes 256 (pids cgroup)". */
  limits: string[];
}

/** Per-step limits, sent with every run: a remote runner applies its clients' limits. */
export interface SandboxLimits {
  /** Heap of a JavaScript or TypeScript step's isolate. */
  jsMemoryMb: number;
  /** Writable memory of each process of a step (RLIMIT_DATA). */
  memoryMb: number;
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
  processes: 256,
  openFiles: 256,
  outputBytes: 10 * 1024 * 1024,
  artifactFiles: 20,
  artifactFileBytes: 10 * 1024 * 1024,
  artifactTotalBytes: 50 * 1024 * 1024,
};

export type LogListener = (line: string) => void;

export interface CodeRunner {
  /**
   * Never throws for user-code failures; an aborted run resolves `ok: false` quickly with its
   * processes killed. `onLog` receives the step's log lines as they are written.
   */
  run(req: CodeRequest, signal?: AbortSignal, onLog?: LogListener): Promise<CodeResult>;
  /** The isolation of the runner(s), as reported when they started. */
  isolation(): Isolation;
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
