import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, mkdir, rm, writeFile } from "node:fs/promises";
import type { Server, Socket } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import type { UidBlock } from "./host/uid-block";
import type { PlanEntry } from "./sandbox-plan";
import { ZYGOTE_LIB } from "./sandbox-plan";
import type { ExitStatus, StepProcess } from "./supervise";

const ENTER_SCRIPT = join(ZYGOTE_LIB, "enter.py");
/** Longest first line a connection may send: a 32-character hex token and its newline. */
const MAX_TOKEN_LINE = 64;
const STDERR_TAIL_CHARS = 2048;

type ZygoteMessage =
  | { ready: true; seccomp: boolean }
  | { id: number; pid: number }
  | { id: number; code: number | null; signal: string | null; connected: boolean }
  | { id: number; error: string };

interface ZygoteRun {
  streams: PassThrough[];
  resolve: (status: ExitStatus) => void;
  reject: (err: Error) => void;
}

/** What a step's process runs: Python code in the forked child, or a program it execs. */
export type ZygoteCommand = { code: string } | { argv: string[] };

/** Set in the step's process, with its step, before user code runs; see zygote/confine.py. */
export interface ProcessLimits {
  cpuSeconds: number;
  dataBytes: number;
  openFiles: number;
  processes: number;
  fileBytes: number;
  artifactFiles: number;
  artifactFileBytes: number;
  artifactTotalBytes: number;
}

/** What a step's process is set up with before its step is known; see zygote/step.py. */
export interface ProcessSetup {
  /**
   * The step's directory, a child of the zygote's `runs` directory, as the zygote sees it; /step to the step when
   * confined.
   */
  runDir: string;
  /**
   * In the sandbox, the step's directory for the zygote to make (its name under `runs`, and its owner): the runner
   * cannot write there.
   */
  makeRun?: { name: string; uid: number };
  /** The step's uid (and gid): in the sandbox's user namespace, or on the host when not confined. */
  uid: number;
  /** The cgroup directories the step joins, as the zygote sees them. */
  cgroups: string[];
  /** Size of the step's private /tmp and /dev/shm (each). */
  tmpBytes: number;
  /**
   * The step's proxy: its port inside, and its egress socket (a name in the zygote's `ctl` directory): the zygote
   * relays one to the other.
   */
  network?: { port: number; socket: string };
  /** An interactive process (an MCP server): its stdin is a stream of the caller's. */
  interactive?: boolean;
}

/** What the step brings to the process set up for it. */
export interface ProcessStart {
  env: Record<string, string>;
  limits: ProcessLimits;
}

/** A step's process and, when interactive, its stdin. */
export interface ZygoteProcess extends StepProcess {
  readonly stdin: PassThrough | undefined;
}

/** A step's process, forked and being set up (or waiting) for a step it has not been given yet. */
export interface PreparedProcess extends ZygoteProcess {
  /** Gives it its step: it runs `command` as soon as its set-up is done. */
  start(command: ZygoteCommand, step: ProcessStart): void;
}

/** What the artifact reader needs of a step that is over. */
export interface ArtifactRequest {
  runDir: string;
  uid: number;
  limits: Pick<ProcessLimits, "artifactFiles" | "artifactFileBytes" | "artifactTotalBytes">;
}

/**
 * The runner side of a zygote (zygote/main.py): starts it in its sandbox (zygote/enter.py, whose uid
 * and gid maps this process writes), asks it to fork a step's processes and hands each step's stdio
 * and artifacts to the caller as streams. A step's process connects to a Unix socket served here (in
 * the zygote's `ctl` directory, only its uid may enter) with its single-use token; that connection
 * carries its step and becomes its stdout, the others carry tokens it names; unknown ones are hung up on.
 */
export class Zygote {
  private readonly runs = new Map<number, ZygoteRun>();
  /** Connections expected from steps not connected yet, by token. */
  private readonly waiting = new Map<string, { stream: PassThrough; step: StepLine | undefined; toStep: boolean }>();
  private nextId = 1;
  private stderrTail = "";
  private exitError: Error | undefined;
  private readonly ready: Promise<{ seccomp: boolean }>;
  /** Whether its steps run under the seccomp filter (not where the filter does not know the machine's system calls). */
  seccomp = false;
  private readonly onFailed: (err: Error) => void;

  private constructor(
    private readonly proc: ChildProcessWithoutNullStreams,
    private readonly server: Server,
    /**
     * Where the zygote's run directories are, as this process reaches them (in the sandbox: through the zygote's root).
     */
    readonly runsDir: string,
    /** Where its control sockets are, on the host (egress sockets go here too). */
    readonly ctlDir: string,
    private readonly dir: string,
    /** Whether it runs in the sandbox; see start(). */
    readonly confined: boolean,
    uids: UidBlock | undefined,
  ) {
    server.on("connection", (socket) => this.accept(socket));
    proc.stderr.setEncoding("utf8").on("data", (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    let onReady: (r: { seccomp: boolean }) => void = () => undefined;
    let onFailed: (err: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      onReady = resolve;
      onFailed = reject;
    });
    createInterface({ input: proc.stdout }).on("line", (line) => {
      if (line === "userns" && uids) return void this.mapUsers(uids).catch((err: Error) => this.shutdown(err));
      const msg = parseMessage(line);
      if (msg && "ready" in msg) onReady({ seccomp: msg.seccomp });
      else if (msg) this.onRunMessage(msg);
    });
    this.onFailed = onFailed;
    // Writes to a zygote that just died fail with EPIPE; its exit event reports the failure.
    proc.stdin.on("error", () => undefined);
    // "close" rather than "exit": it comes after stderr is drained, so the failure carries all of it.
    proc.on("close", (code, signal) => this.shutdown(this.failure(`exited (${signal ?? `code ${code}`})`)));
    proc.on("error", (err) => this.shutdown(this.failure(`failed: ${err.message}`)));
  }

  /**
   * Starts a zygote in `dir` (made here, removed when it ends): in the sandbox, its file system
   * `plan` and its uids those of `uids`; without `plan` (an operator's opt-in where the sandbox
   * cannot start), on the host as it is. Resolves once it is ready.
   */
  static async start(opts: {
    python: string;
    dir: string;
    plan: ((dirs: { ctl: string }) => PlanEntry[]) | undefined;
    uids: UidBlock | undefined;
    env: Record<string, string>;
  }): Promise<Zygote> {
    const { dir, uids } = opts;
    const owner = uids?.hostBase ?? process.getuid?.() ?? 0;
    const runs = join(dir, "runs");
    const ctl = join(dir, "ctl");
    await mkdir(dir, { mode: 0o700 });
    // The zygote's uid owns both; steps reach only their own run directory, through its own mount.
    await mkdir(runs, { mode: 0o711 });
    await mkdir(ctl, { mode: 0o700 });
    await Promise.all([chown(runs, owner, owner), chown(ctl, owner, owner)]);
    const socketPath = join(ctl, "stdio.sock");
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(socketPath, resolve));
    await chown(socketPath, owner, owner);
    let proc: ChildProcessWithoutNullStreams;
    if (opts.plan) {
      const planFile = join(dir, "plan.json");
      await writeFile(planFile, JSON.stringify(opts.plan({ ctl })), { mode: 0o600 });
      const zygoteCommand = [opts.python, "-I", "-B", "/run/wf/lib/main.py", "/run/wf/ctl", "confined"];
      proc = spawn(opts.python, ["-I", "-B", ENTER_SCRIPT, planFile, ...zygoteCommand], {
        cwd: "/",
        env: opts.env,
        stdio: "pipe",
      });
    } else {
      proc = spawn(opts.python, ["-I", "-B", join(ZYGOTE_LIB, "main.py"), ctl, "host"], {
        cwd: ctl,
        env: opts.env,
        stdio: "pipe",
      });
    }
    // In the sandbox the steps' directories are a tmpfs of the zygote's mount namespace, which the
    // process that entered it (and pivoted with it) shows at /proc/<pid>/root.
    const zygote = new Zygote(
      proc,
      server,
      opts.plan ? `/proc/${proc.pid}/root/run/wf/runs` : runs,
      ctl,
      dir,
      opts.plan !== undefined,
      uids,
    );
    try {
      zygote.seccomp = (await zygote.ready).seccomp;
      return zygote;
    } catch (err) {
      zygote.kill();
      throw err;
    }
  }

  get alive(): boolean {
    return this.exitError === undefined;
  }

  /** Steps forked and not yet reported ended. */
  get busy(): number {
    return this.runs.size;
  }

  /**
   * Forks the main process of one step, which sets itself up at once and receives its step when start() gives
   * it: from here, not through the zygote.
   */
  prepare(setup: ProcessSetup): PreparedProcess {
    const tokens = { stdout: newToken(), stderr: newToken(), stdin: setup.interactive ? newToken() : undefined };
    const { interactive: _, network, makeRun, ...rest } = setup;
    const stepLine = new StepLine();
    const stdout = this.expectConnection(tokens.stdout, stepLine);
    const stderr = this.expectConnection(tokens.stderr);
    const stdin = tokens.stdin === undefined ? undefined : this.expectConnection(tokens.stdin, undefined, true);
    const run: ZygoteRun = {
      streams: [stdout, stderr, ...(stdin ? [stdin] : [])],
      resolve: () => undefined,
      reject: () => undefined,
    };
    const exited = new Promise<ExitStatus>((resolve, reject) => {
      run.resolve = resolve;
      run.reject = reject;
    });
    const id = this.nextId++;
    if (this.exitError) {
      endStreams(run);
      run.reject(this.exitError);
    } else {
      this.runs.set(id, run);
      this.send({
        id,
        token: tokens.stdout,
        setup: { ...rest, confined: this.confined, gid: setup.uid, stderr: tokens.stderr, stdin: tokens.stdin },
        ...(makeRun ? { run: makeRun } : {}),
        ...(network ? { network } : {}),
      });
    }
    const kill = (): void => {
      if (this.runs.has(id)) this.send({ kill: id });
    };
    const start = (command: ZygoteCommand, step: ProcessStart): void =>
      stepLine.send(`${JSON.stringify({ ...command, ...step })}\n`);
    return { stdout, stderr, stdin, exited, kill, limitReached: () => undefined, start };
  }

  /**
   * The artifacts of a step that is over, read by a process the zygote forks for it, as the
   * step's uid (see zygote/artifacts.py): the stream ends when all are sent.
   */
  readArtifacts(request: ArtifactRequest): PassThrough {
    const token = newToken();
    const stream = this.expectConnection(token);
    if (this.exitError) stream.end();
    else this.send({ artifacts: token, ...request, confined: this.confined });
    return stream;
  }

  /**
   * Stops the zygote: the end of its input has it kill its steps and exit; the SIGKILL of the
   * process that started it reaches it too (its parent death signal), and with the zygote, the
   * init of their PID namespace, every step.
   */
  kill(): void {
    this.proc.stdin.destroy();
    this.proc.kill("SIGKILL");
    this.shutdown(new Error("the zygote was stopped"));
  }

  private send(msg: object): void {
    this.proc.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  private async mapUsers(uids: UidBlock): Promise<void> {
    const pid = this.proc.pid;
    if (pid === undefined) return;
    await writeFile(`/proc/${pid}/uid_map`, uids.idMap);
    await writeFile(`/proc/${pid}/gid_map`, uids.idMap);
    this.proc.stdin.write("mapped\n");
  }

  private onRunMessage(msg: Exclude<ZygoteMessage, { ready: true }>): void {
    const run = this.runs.get(msg.id);
    if (!run) return;
    if ("pid" in msg) return;
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
      run.reject(
        new Error(
          `the step's process failed before running it (${msg.signal ?? `exit code ${msg.code}`})${this.stderrTail ? `: ${this.stderrTail.trim()}` : ""}`,
        ),
      );
    }
  }

  private failure(what: string): Error {
    return new Error(`the zygote ${what}${this.stderrTail ? `: ${this.stderrTail.trim()}` : ""}`);
  }

  /** Fails every run in flight; their processes die with the zygote, the init of their namespace. */
  private shutdown(err: Error): void {
    if (this.exitError) return;
    this.exitError = err;
    this.onFailed(err);
    for (const run of this.runs.values()) {
      endStreams(run);
      run.reject(err);
    }
    this.runs.clear();
    this.server.close();
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
    void rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /**
   * A stream for the connection that will introduce itself with `token`, to be sent `step`: what
   * the step writes on it, or, `toStep`, what the caller writes to the step.
   */
  private expectConnection(token: string, step?: StepLine, toStep = false): PassThrough {
    const stream = new PassThrough();
    this.waiting.set(token, { stream, step, toStep });
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
      const { stream, step, toStep } = expected;
      if (toStep) {
        stream.pipe(socket);
        socket.once("close", () => stream.destroy());
        return;
      }
      step?.connected(socket);
      stream.write(head.subarray(newline + 1));
      socket.pipe(stream);
      socket.once("close", () => {
        if (!stream.writableEnded) stream.end();
      });
      // Given up on by the supervisor of the run (a process outside the killed group held the socket).
      stream.once("close", () => socket.destroy());
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  }
}

/** The line giving a step's process its step, written on its connection once both are there, whichever comes first. */
class StepLine {
  private socket: Socket | undefined;
  private line: string | undefined;

  send(line: string): void {
    if (this.socket) this.socket.write(line);
    else this.line = line;
  }

  connected(socket: Socket): void {
    this.socket = socket;
    if (this.line !== undefined) socket.write(this.line);
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
