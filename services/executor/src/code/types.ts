export type CodeLanguage = "python" | "javascript" | "typescript" | "bash" | "ruby" | "lua" | "cli";

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
  /** Whether the step may use the network; enforced by the sandbox, not yet by these runners. */
  network?: boolean;
}

export type CodeResult =
  | { ok: true; output: unknown; logs: string[]; durationMs: number }
  | { ok: false; error: string; logs: string[]; durationMs: number; timedOut: boolean };

export interface CodeRunner {
  /** Never throws for user-code failures; an aborted run resolves `ok: false` quickly with its process killed. */
  run(req: CodeRequest, signal?: AbortSignal): Promise<CodeResult>;
  /** Kills the JavaScript runner process, the Python zygote and anything still running. */
  close(): Promise<void>;
}

/** One language's runner; `durationMs` is added by the dispatcher. */
export interface LanguageRunner {
  run(req: CodeRequest, signal?: AbortSignal): Promise<RunResult>;
  close(): Promise<void>;
}

type WithoutDuration<T> = T extends unknown ? Omit<T, "durationMs"> : never;
export type RunResult = WithoutDuration<CodeResult>;

export class UnsupportedLanguageError extends Error {
  constructor(language: string) {
    super(`code steps in ${language} are not supported yet`);
    this.name = "UnsupportedLanguageError";
  }
}
