import type { ChildProcess } from "node:child_process";
import { Socket } from "node:net";
import type { HandOffMessage, HandOffRequest } from "./hand-off-protocol";
import type { RunnerClient } from "./runner-client";
import { RunnerConnection } from "./runner-connection";
import { runsInIsolate, type CodeRequest, type LogListener, type RunResult, type SandboxLimits } from "./types";

/** How long a host's closed socket waits for the runner to say why the host ended. */
const REASON_WAIT_MS = 1_000;
/** How long a run waits for the runner to hand over a host before it fails (a host starts in well under a second). */
const HOST_WAIT_MS = 30_000;

/**
 * The executor's direct connection to a sandbox runner's JavaScript host, handed over by the
 * runner (js-host-hand-off.ts): JavaScript and TypeScript runs go there, owners taking turns at
 * it as they would at the runner. A host that ended fails its runs with the runner's reason; the
 * next run asks the runner for another.
 */
export class JsHostLink {
  private current: { gen: number; conn: RunnerConnection } | undefined;
  private readonly waiting: Array<{ resolve(conn: RunnerConnection): void; reject(err: Error): void }> = [];
  private asked = false;
  private failure: Error | undefined;

  constructor(private readonly proc: ChildProcess) {
    proc.on("message", (msg: HandOffMessage, handle: unknown) => this.receive(msg, handle));
  }

  get busy(): number {
    return this.current?.conn.alive ? this.current.conn.busy : 0;
  }

  run(req: CodeRequest, limits: SandboxLimits, signal?: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    const conn = this.current?.conn;
    // The host at hand, as for nearly every run: sent now, with no turn of the event loop waited for it.
    if (this.failure === undefined && conn?.alive) return conn.run(req, limits, signal, onLog);
    return this.runOnNext(req, limits, signal, onLog);
  }

  /** Runs `req` on the host the runner hands over next, or fails it with why none came. */
  private async runOnNext(
    req: CodeRequest,
    limits: SandboxLimits,
    signal: AbortSignal | undefined,
    onLog: LogListener | undefined,
  ): Promise<RunResult> {
    let conn: RunnerConnection;
    try {
      conn = await this.connection();
    } catch (err) {
      return {
        ok: false,
        error: err instanceof Error ? err.message : String(err),
        logs: [],
        artifacts: [],
        timedOut: false,
      };
    }
    return conn.run(req, limits, signal, onLog);
  }

  /** Fails the host's runs and every later one: the runner is gone. Its host exits as its socket closes. */
  fail(err: Error): void {
    this.failure ??= err;
    this.current?.conn.fail(err);
    for (const waiter of this.waiting.splice(0)) waiter.reject(err);
  }

  private connection(): Promise<RunnerConnection> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.current?.conn.alive) return Promise.resolve(this.current.conn);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        this.asked = false;
        reject(new Error(`the sandbox runner handed over no JavaScript host within ${HOST_WAIT_MS / 1000} s`));
      }, HOST_WAIT_MS);
      const waiter = {
        resolve: (conn: RunnerConnection) => (clearTimeout(timer), resolve(conn)),
        reject: (err: Error) => (clearTimeout(timer), reject(err)),
      };
      this.waiting.push(waiter);
      if (!this.asked) {
        this.asked = true;
        this.request({ t: "js-host-wanted", seen: this.current?.gen ?? 0 });
      }
    });
  }

  private receive(msg: HandOffMessage, handle: unknown): void {
    if (msg.t === "js-host-ended") {
      if (this.current?.gen === msg.gen) this.current.conn.fail(new Error(msg.reason));
      return;
    }
    if (!(handle instanceof Socket)) return;
    const { gen } = msg;
    const conn = new RunnerConnection(handle, (why) => this.request({ t: "js-host-kill", gen, why }));
    handle.on("close", () =>
      setTimeout(
        () => conn.fail(new Error("the JavaScript host process closed its connection")),
        REASON_WAIT_MS,
      ).unref(),
    );
    if (this.failure) return conn.fail(this.failure);
    this.current = { gen, conn };
    this.asked = false;
    for (const waiter of this.waiting.splice(0)) waiter.resolve(conn);
  }

  private request(msg: HandOffRequest): void {
    // A runner that is gone is reported by its process's end.
    if (this.proc.connected) this.proc.send(msg, () => undefined);
  }
}

/** A runner's connection for every language but JavaScript and TypeScript, which go to its host's link. */
export class RoutedRunner implements RunnerClient {
  constructor(
    private readonly conn: RunnerConnection,
    private readonly link: JsHostLink,
  ) {}

  get ready(): RunnerClient["ready"] {
    return this.conn.ready;
  }

  get busy(): number {
    return this.conn.busy + this.link.busy;
  }

  get alive(): boolean {
    return this.conn.alive;
  }

  run(req: CodeRequest, limits: SandboxLimits, signal?: AbortSignal, onLog?: LogListener): Promise<RunResult> {
    return runsInIsolate(req.language)
      ? this.link.run(req, limits, signal, onLog)
      : this.conn.run(req, limits, signal, onLog);
  }

  open(...args: Parameters<RunnerClient["open"]>): ReturnType<RunnerClient["open"]> {
    return this.conn.open(...args);
  }
}
