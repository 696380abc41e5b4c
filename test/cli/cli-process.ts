import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/testing";
import { entryArgs } from "../support/built-entries";
import { startRuntime, testConfig, type InProcessRuntime } from "../support/runtime";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The launcher users run: the CLI's TypeScript through tsx. */
const WF = fileURLToPath(new URL("../../cli/bin/wf.mjs", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  stdout(): string;
  stderr(): string;
  /** Polls (bounded) until the output so far contains `text`. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  signal(sig: NodeJS.Signals): void;
  /** Types a line on its standard input (started with `stdin: true`). */
  send(line: string): void;
  readonly exited: Promise<CliResult>;
}

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

/**
 * Starts `wf` as users do: its own process, configured only by the environment given; the test
 * run's bundle of the CLI, or with `fromSource` the launcher (cli/bin/wf.mjs).
 */
export function startCli(
  args: string[],
  env: Record<string, string> = {},
  opts: { stdin?: boolean; fromSource?: boolean } = {},
): CliProcess {
  const proc = spawn(process.execPath, [...(opts.fromSource ? [WF] : entryArgs(ROOT, "cli/src/main.ts")), ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"],
  });
  live.add(proc);
  let stdout = "";
  let stderr = "";
  proc.stdout?.on("data", (b: Buffer) => (stdout += b.toString()));
  proc.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<CliResult>((resolve) => {
    proc.once("close", (code) => {
      live.delete(proc);
      resolve({ code, stdout, stderr });
    });
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    async waitForOutput(text, timeoutMs = 20_000) {
      await waitFor(() => (stdout + stderr).includes(text), {
        timeoutMs,
        what: `\`${text}\` in the output of wf ${args.join(" ")}\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}`,
      });
    },
    signal: (sig) => void proc.kill(sig),
    send(line) {
      if (!proc.stdin) throw new Error("started without stdin");
      proc.stdin.write(`${line}\n`);
    },
    exited,
  };
}

export function runCli(
  args: string[],
  env: Record<string, string> = {},
  opts: { fromSource?: boolean } = {},
): Promise<CliResult> {
  return startCli(args, env, opts).exited;
}

/** Writes workflow files into a temp dir removed after the calling test file; returns their paths by name. */
export async function workflowFiles<K extends string>(files: Record<K, string>): Promise<Record<K, string>> {
  const dir = await mkdtemp(join(tmpdir(), "wf-cli-"));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const paths = {} as Record<K, string>;
  for (const [name, text] of Object.entries(files) as [K, string][]) {
    paths[name] = join(dir, `${name}.yaml`);
    await writeFile(paths[name], text);
  }
  return paths;
}

/** The service the CLI talks to in a test file: a real nats-server, executor and scheduler. */
export interface TestService {
  server: NatsServerHandle;
  rt: InProcessRuntime;
  /** Points the CLI at this service. */
  env: Record<string, string>;
}

/** Starts one service for the file (beforeAll), configured by `env`, and stops it after (afterAll); read it in tests. */
export function useTestService(env: Record<string, string> = {}): () => TestService {
  let svc: TestService | undefined;
  beforeAll(async () => {
    const server = await startNatsServer();
    const rt = await startRuntime(testConfig(server, env));
    svc = { server, rt, env: { NATS_URL: server.url, WF_NAMESPACE: rt.ns } };
  });
  afterAll(async () => {
    await svc?.rt.stop();
    await svc?.server.stop();
  });
  return () => {
    if (!svc) throw new Error("the test service is not started yet");
    return svc;
  };
}

/** `--json` output: one JSON value a line, each with its `type`. */
export function jsonLines(stdout: string): Array<{ type: string; [k: string]: unknown }> {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
}
