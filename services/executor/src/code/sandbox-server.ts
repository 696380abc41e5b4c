import type { Duplex } from "node:stream";
import { PassThrough } from "node:stream";
import { HeldCodes } from "./code-refs";
import type { JsPool } from "./js-run-clock";
import type { ClientMessage, TurnState } from "./protocol";
import { JsonText, jsonOf, valueOf } from "./json-text";
import { fitsOnALine, messageLine, readMessages, toWire, writeFollowed, writeMessage } from "./protocol";
import type { Interactive, Isolation, CodeRequest, LogListener, RunResult, SandboxLimits } from "./types";

/** What a connection is served by: a runner's Sandbox, or a JavaScript host's steps. */
export interface Served {
  readonly isolation: Isolation;
  /** What its JavaScript host takes at once (js-bounds.ts). */
  readonly jsPool: JsPool;
  /** The process steps it runs at once (WF_SANDBOX_STEPS); none for a JavaScript host. */
  readonly processSteps?: number;
  run(
    req: CodeRequest,
    limits: SandboxLimits,
    signal: AbortSignal,
    onLog?: LogListener,
    interactive?: Interactive,
    onTurn?: (state: TurnState) => void,
  ): Promise<RunResult>;
}

/**
 * Serves one client connection (see protocol.ts): runs what it asks, streams the logs of runs
 * that asked for them, stops a run on `cancel`, and every run of a connection that closes.
 */
export function serveConnection(stream: Duplex, sandbox: Served): void {
  const runs = new Map<number, AbortController>();
  const inputs = new Map<number, PassThrough>();
  const codes = new HeldCodes();
  stream.on("error", () => stream.destroy());
  stream.on("close", () => {
    for (const run of runs.values()) run.abort();
  });
  readMessages<ClientMessage>(stream, (msg, follows) => {
    if (msg.t === "cancel") {
      runs.get(msg.id)?.abort();
      return;
    }
    if (msg.t === "stdin") {
      inputs.get(msg.id)?.write(msg.data);
      return;
    }
    if (msg.t === "eof") {
      inputs.get(msg.id)?.end();
      return;
    }
    if (msg.t === "code") {
      codes.hold(msg.codeId, msg.code);
      return;
    }
    if (msg.t === "forget") {
      codes.forget(msg.codeId);
      return;
    }
    let req = msg.req;
    // Carried as it came: the JavaScript host hands it to the isolate, a process step's environment takes it as it is.
    if (msg.t === "run" && msg.follows === "input") req = { ...req, input: new JsonText(follows ?? "null") };
    if (msg.t === "run" && msg.codeId !== undefined) {
      const code = codes.code(msg.codeId);
      // Its client sends a code before the runs that name it and forgets none they may name: a bug if it comes.
      if (code === undefined) {
        const result = failed(`the sandbox runner holds no code under id ${msg.codeId}`);
        writeMessage(stream, { t: "result", id: msg.id, result: toWire(result) });
        return;
      }
      req = { ...req, code };
    }
    const controller = new AbortController();
    runs.set(msg.id, controller);
    const onLog =
      msg.t === "open" || msg.live ? (line: string) => writeMessage(stream, { t: "log", id: msg.id, line }) : undefined;
    let input: PassThrough | undefined;
    if (msg.t === "open") {
      input = new PassThrough();
      inputs.set(msg.id, input);
    }
    const interactive = input && {
      input,
      onStdout: (data: string) => writeMessage(stream, { t: "out", id: msg.id, data }),
    };
    void sandbox
      .run(req, msg.limits, controller.signal, onLog, interactive, (state) =>
        writeMessage(stream, { t: state, id: msg.id }),
      )
      .catch((err: unknown) => failed(`the sandbox runner failed: ${String(err)}`))
      .then((result) => {
        runs.delete(msg.id);
        inputs.delete(msg.id);
        writeResult(stream, msg.id, result, msg.t === "run" && msg.rawOutput === true);
      });
  });
  writeMessage(stream, {
    t: "ready",
    isolation: sandbox.isolation,
    js: sandbox.jsPool,
    ...(sandbox.processSteps === undefined ? {} : { processSteps: sandbox.processSteps }),
    codeRefs: true,
    rawInput: true,
  });
}

/** A run's result; its output on a line of its own where the client takes it so. */
function writeResult(stream: Duplex, id: number, result: RunResult, rawOutput: boolean): void {
  if (rawOutput && result.ok && result.output !== undefined) {
    const json = jsonOf(result.output);
    if (fitsOnALine(json)) {
      const line = messageLine({
        t: "result",
        id,
        result: toWire({ ...result, output: undefined }),
        follows: "output",
      });
      return writeFollowed(stream, line, json);
    }
  }
  let embedded = result;
  try {
    if (result.ok) embedded = { ...result, output: valueOf(result.output) };
  } catch {
    // Only a JavaScript host this runner relays to sends an output's text, and its isolates' JSON.stringify wrote it.
    embedded = failed("the JavaScript host answered an output that is not JSON");
  }
  writeMessage(stream, { t: "result", id, result: toWire(embedded) });
}

function failed(error: string): RunResult {
  return { ok: false, error, logs: [], artifacts: [], timedOut: false };
}
