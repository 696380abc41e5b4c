import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import type { Server, Socket } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import type { BaseEnv } from "./env";
import type { ExitStatus, StepProcess } from "./supervise";

const ZYGOTE_SCRIPT = fileURLToPath(new URL("./zygote.py", import.meta.url));
/** Longest first line a connection may send: a 32-character hex token and its newline. */
const MAX_TOKEN_LINE = 64;
const STDERR_TAIL_CHARS = 2048;

type ZygoteMessage =
  | { ready: true }
  | { id: number; pid: number }
  | { id: number; code: number | null; signal: string | null; connected: boolean }
  | { id: number; error: string };

interface ZygoteRun {
  pid?: number;
  killRequested: boolean;
  streams: PassThrough[];
  resolve: (status: ExitStatus) => void;
  reject: (err: Error) => void;
}

/** What a step's process runs: Python code in the forked child, or a program it execs. */
export type ZygoteCommand = { code: string } | { argv: string[] };

/** Set in the child before user code runs; see set_limits() in zygote.py. */
export interface ProcessLimits {
  cpuSeconds: number;
  dataBytes: number;
  openFiles: number;
  processes: number;
  fileBytes: number;
}

export interface ZygoteRequest {
  cwd: string;
  env: Record<string, string>;
  limits: ProcessLimits;
  /** A pids cgroup for the child to join before running user code. */
  cgroup?: string;
}

/**
 * The runner side of zygote.py: starts it (inside `sandbox`, the bubblewrap command line, when
 * given), asks it to fork a child per step and hands each child's stdio to the caller as
 * streams. A child connects to a Unix socket served here (in a 0700 directory) with the random
 * single-use token it was forked with, receives its request on that connection, which becomes
 * its stdout, and opens a second one for stderr with a second token from the request; an
 * unknown token is hung up on.
 */
export class Zygote {
  private readonly runs = new Map<number, ZygoteRun>();
  /** Connections expected from children not connected yet, by token. */
  private readonly waiting = new Map<string, { stream: PassThrough; reply: string | undefined }>();
  private nextId = 1;
  private stderrTail = "";
  private exitError: Error | undefined;
  private readonly ready: Promise<void>;
  private readonly onFailed: (err: Error) => void;

  private constructor(
    private readonly proc: ChildProcessWithoutNullStreams,
    private readonly server: Server,
    private readonly dir: string,
  ) {
    server.on("connection", (socket) => this.accept(socket));
    proc.stderr.setEncoding("utf8").on("data", (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    let onReady: () => void = () => undefined;
    let onFailed: (err: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      onReady = resolve;
      onFailed = reject;
    });
    createInterface({ input: proc.stdout }).on("line", (line) => {
      const msg = parseMessage(line);
      if (msg && "ready" in msg) onReady();
      else if (msg) this.onRunMessage(msg);
    });
    this.onFailed = onFailed;
    // Writes to a zygote that just died fail with EPIPE; its exit event reports the failure.
    proc.stdin.on("error", () => undefined);
    // "close" rather than "exit": it comes after stderr is drained, so the failure carries all of it.
    proc.on("close", (code, signal) => this.shutdown(this.failure(`exited (${signal ?? `code ${code}`})`)));
    proc.on("error", (err) => this.shutdown(this.failure(`failed: ${err.message}`)));
  }

  static async start(opts: { python: string; tmpRoot: string; baseEnv: BaseEnv; sandbox?: string[] }): Promise<Zygote> {
    const dir = await mkdtemp(join(opts.tmpRoot, "zygote-"));
    const socketPath = join(dir, "stdio.sock");
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(socketPath, resolve));
    const command = [opts.python, "-I", ZYGOTE_SCRIPT, socketPath];
    const [file, ...args] = opts.sandbox ? [...opts.sandbox, ...command] : command;
    const proc = spawn(file!, args, { cwd: dir, env: { ...opts.baseEnv, HOME: dir }, stdio: "pipe" });
    const zygote = new Zygote(proc, server, dir);
    try {
      await zygote.ready;
    } catch (err) {
      zygote.kill();
      throw err;
    }
    return zygote;
  }

  get alive(): boolean {
    return this.exitError === undefined;
  }

  /** Forks the process of one step, which receives its request (command, environment, cwd, limits) from here, not through the zygote. */
  fork(command: ZygoteCommand, request: ZygoteRequest): StepProcess {
    const stdoutToken = newToken();
    const stderrToken = newToken();
    const requestLine = `${JSON.stringify({ ...command, ...request, stderr: stderrToken })}\n`;
    const run: ZygoteRun = {
      killRequested: false,
      streams: [this.expectConnection(stdoutToken, requestLine), this.expectConnection(stderrToken)],
      resolve: () => undefined,
      reject: () => undefined,
    };
    const exited = new Promise<ExitStatus>((resolve, reject) => {
      run.resolve = resolve;
      run.reject = reject;
    });
    if (this.exitError) {
      endStreams(run);
      run.reject(this.exitError);
    } else {
      const id = this.nextId++;
      this.runs.set(id, run);
      this.proc.stdin.write(`${JSON.stringify({ id, token: stdoutToken })}\n`);
    }
    const [stdout, stderr] = run.streams as [PassThrough, PassThrough];
    return {
      stdout,
      stderr,
      exited,
      kill: () => {
        // Until the zygote has reported the pid, remember the kill and do it when it does.
        if (run.pid === undefined) run.killRequested = true;
        else killProcessGroup(run.pid);
      },
      limitReached: () => undefined,
    };
  }

  /**
   * Stops the zygote: the end of its input has it kill its steps' groups and exit, which a
   * SIGKILL to the bubblewrap process in front of it would not reach.
   */
  kill(): void {
    this.proc.stdin.destroy();
    this.proc.kill("SIGKILL");
    this.shutdown(new Error("the zygote was stopped"));
  }

  private onRunMessage(msg: Exclude<ZygoteMessage, { ready: true }>): void {
    const run = this.runs.get(msg.id);
    if (!run) return;
    if ("pid" in msg) {
      run.pid = msg.pid;
      if (run.killRequested) killProcessGroup(msg.pid);
      return;
    }
    this.runs.delete(msg.id);
    if ("error" in msg) {
      endStreams(run);
      run.reject(new Error(msg.error));
      return;
    }
    if (msg.connected) run.resolve({ code: msg.code, signal: msg.signal });
    else {
      // It died before running any user code, and will not connect now: no streams to wait for.
      endStreams(run);
      run.reject(new Error(`the step's process failed before running it (${msg.signal ?? `exit code ${msg.code}`})`));
    }
  }

  private failure(what: string): Error {
    return new Error(`the zygote ${what}${this.stderrTail ? `: ${this.stderrTail.trim()}` : ""}`);
  }

  /** Fails every run in flight; their children, orphaned from the zygote, are killed by group. */
  private shutdown(err: Error): void {
    if (this.exitError) return;
    this.exitError = err;
    this.onFailed(err);
    for (const run of this.runs.values()) {
      killProcessGroup(run.pid);
      endStreams(run);
      run.reject(err);
    }
    this.runs.clear();
    this.server.close();
    void rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** A stream for the connection that will introduce itself with `token`, to be sent `reply` first. */
  private expectConnection(token: string, reply?: string): PassThrough {
    const stream = new PassThrough();
    this.waiting.set(token, { stream, reply });
    stream.once("close", () => this.waiting.delete(token));
    return stream;
  }

  private accept(socket: Socket): void {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const newline = head.indexOf(10);
      if (newline < 0) {
        if (head.length > MAX_TOKEN_LINE) socket.destroy();
        return;
      }
      socket.off("data", onData);
      const token = head.subarray(0, newline).toString();
      const expected = this.waiting.get(token);
      if (!expected) {
        socket.destroy();
        return;
      }
      this.waiting.delete(token);
      const { stream, reply } = expected;
      if (reply !== undefined) socket.write(reply);
      stream.write(head.subarray(newline + 1));
      socket.pipe(stream);
      socket.once("close", () => {
        if (!stream.writableEnded) stream.end();
      });
      // Given up on by the supervisor (a process outside the killed group held the socket).
      stream.once("close", () => socket.destroy());
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  }
}

function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the whole group is gone already.
  }
}

function newToken(): string {
  return randomBytes(16).toString("hex");
}

function endStreams(run: ZygoteRun): void {
  for (const stream of run.streams) if (!stream.writableEnded) stream.end();
}

function parseMessage(line: string): ZygoteMessage | undefined {
  try {
    return JSON.parse(line) as ZygoteMessage;
  } catch {
    return undefined;
  }
}
