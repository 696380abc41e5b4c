import type { Duplex } from "node:stream";
import type { JsPool } from "./js-run-clock";
import type { CodeRequest, Isolation, RunResult, SandboxLimits } from "./types";

/**
 * Between a client (the executor) and a sandbox runner, over a forked runner's socket pair or a
 * standalone runner's Unix socket: one JSON message per line, artifact contents base64. Runner to
 * client: `ready` once, then per run any `log` (only if it asked for live logs) and one `result`. Client to runner: a
 * run's code once (`code`), before the runs that name it, where the runner says it holds codes. An
 * interactive process (`open`) also gets `stdin` and `eof`, and sends `out` (stdout) and stderr as `log`.
 *
 * A message with `follows` is followed by a line of its own holding that JSON value's text (a run's input where the
 * runner says `rawInput`, a result's output where the run said `rawOutput`): JSON as JSON.stringify writes it holds no
 * line break, and a side that only carries the value passes the text on (json-text.ts).
 */
export type ClientMessage =
  /** `codeId`: the code the runner holds under that id (a `code` message sent it) is the request's. */
  | {
      t: "run";
      id: number;
      req: CodeRequest;
      limits: SandboxLimits;
      live: boolean;
      codeId?: number;
      /** The input comes on the next line, not in `req`. */
      follows?: "input";
      /** The client takes the output on a line of its own. */
      rawOutput?: true;
    }
  /** A code for the runner to hold for this connection's runs (code-refs.ts), until `forget`. */
  | { t: "code"; codeId: number; code: string }
  | { t: "forget"; codeId: number }
  | { t: "open"; id: number; req: CodeRequest; limits: SandboxLimits }
  | { t: "stdin"; id: number; data: string }
  | { t: "eof"; id: number }
  | { t: "cancel"; id: number };

export type WireArtifact = { path: string; size: number; content: string };
export type WireResult =
  | { ok: true; output: unknown; logs: string[]; artifacts: WireArtifact[] }
  | { ok: false; error: string; logs: string[]; artifacts: WireArtifact[]; timedOut: boolean };

/** Where a run is in its owner's turns at a runner: waiting for one, or running. */
export type TurnState = "queued" | "started";

export type RunnerMessage =
  /**
   * `js`: what its JavaScript host runs at once (js-run-clock.ts); a peer that does not say is taken as this one's.
   * `codeRefs`: it holds codes sent once (code-refs.ts); a peer that does not say gets each run's code in the run.
   * `rawInput`: it takes a run's input on a line of its own; a peer that does not say gets it in the run.
   * `processSteps`: the process steps it runs at once (WF_SANDBOX_STEPS); a peer that does not say is taken to run the
   * default.
   */
  | { t: "ready"; isolation: Isolation; js?: JsPool; codeRefs?: boolean; rawInput?: boolean; processSteps?: number }
  | { t: "log"; id: number; line: string }
  | { t: "out"; id: number; data: string }
  /** `follows`: the output comes on the next line, not in `result`. */
  | { t: "result"; id: number; result: WireResult; follows?: "output" }
  /**
   * The run waits for its owner's turn at the runner (`queued`) until it has it (`started`): its timeout counts from
   * then.
   */
  | { t: "queued"; id: number }
  | { t: "started"; id: number };

export function toWire(result: RunResult): WireResult {
  return { ...result, artifacts: result.artifacts.map((a) => ({ ...a, content: a.content.toString("base64") })) };
}

export function fromWire(result: WireResult): RunResult {
  return { ...result, artifacts: result.artifacts.map((a) => ({ ...a, content: Buffer.from(a.content, "base64") })) };
}

/**
 * Reads newline-delimited JSON from `stream`, calling `onMessage` for each message, with the text of the line that
 * follows it where it says one does (`follows`), unparsed. A message can be tens of megabytes (artifacts): chunks are
 * kept as they come and joined once a newline arrives, rather than rescanning a growing string.
 */
export function readMessages<T>(stream: Duplex, onMessage: (msg: T, follows?: string) => void): void {
  let pending: Buffer[] = [];
  /** A message whose following line has not come yet. */
  let waiting: T | undefined;
  stream.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      // A line begun in earlier chunks is joined with them; one within this chunk is read from it as it is.
      let line: string;
      if (pending.length === 0) line = chunk.toString("utf8", start, nl);
      else {
        pending.push(chunk.subarray(start, nl));
        line = Buffer.concat(pending).toString("utf8");
        pending = [];
      }
      start = nl + 1;
      if (waiting !== undefined) {
        const msg = waiting;
        waiting = undefined;
        onMessage(msg, line);
        continue;
      }
      let msg: T;
      try {
        msg = JSON.parse(line) as T;
      } catch (err) {
        stream.destroy(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (typeof (msg as { follows?: unknown }).follows === "string") waiting = msg;
      else onMessage(msg);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
}

/** Lines waiting for the end of this turn of the event loop, per stream. */
const queued = new WeakMap<Duplex, string[]>();

/**
 * Messages written in one turn of the event loop leave in one write: a write per message is a
 * system call each, with 256 executions running, 3,600 messages left in 554 writes instead of 3,600.
 */
export function writeMessage(stream: Duplex, msg: ClientMessage | RunnerMessage): void {
  writeLine(stream, messageLine(msg));
}

/** A message as its line, for a caller that weighs it before it is written (writeLine). */
export function messageLine(msg: ClientMessage | RunnerMessage): string {
  return `${JSON.stringify(msg)}\n`;
}

/**
 * Writes a message that says `follows` and the JSON text that follows it, with the other messages of this turn; a text
 * holding a line break (no JSON.stringify writes one) must go in its message instead.
 */
export function writeFollowed(stream: Duplex, line: string, json: string): void {
  writeLine(stream, line);
  writeLine(stream, `${json}\n`);
}

/** Whether `json` can go on a line of its own after its message (writeFollowed). */
export function fitsOnALine(json: string): boolean {
  return !json.includes("\n");
}

/** Writes a line made by messageLine, with the other messages of this turn (writeMessage). */
export function writeLine(stream: Duplex, line: string): void {
  if (!stream.writable) return;
  const lines = queued.get(stream);
  if (lines) {
    lines.push(line);
    return;
  }
  queued.set(stream, [line]);
  setImmediate(() => {
    const all = queued.get(stream)!;
    queued.delete(stream);
    if (stream.writable) stream.write(all.length === 1 ? all[0]! : all.join(""));
  });
}

/**
 * Runs `fn` once every line written in this turn of the event loop has left: writeLine's write is an immediate queued
 * in this turn, and one queued while the loop runs this turn's immediates runs in the next turn, after it.
 */
export function afterThisTurnsWrites(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}
