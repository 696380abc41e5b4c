import { endedStatus, type ExecutionEvent } from "@wf/shared/execution";
import type { ServiceConnection } from "./connection";
import { formatResult, readResult } from "./execution-result";
import { followEvents } from "./follow-events";
import { formatEvent } from "./format-event";
import { EXIT, UsageError } from "./usage";

/** How long an execution may go unnoticed by every executor before we say none seems to run. */
const PICKUP_HINT_MS = 10_000;
/**
 * The events are replayed from a little before the start command, not followed from "now":
 * however the consumer's creation and the first events interleave, none is missed. The margin
 * absorbs clock skew with the server; the execution id (chosen here) filters out the rest.
 */
const REPLAY_MARGIN_MS = 60_000;

export interface FollowOptions {
  /** Raw events as JSON lines, and last a line `{"type":"result", …}`. */
  json: boolean;
  timeoutMs: number | undefined;
}

/**
 * What `wf run` and `wf rerun` do once they know what to start: `start` publishes the start
 * command of `executionId` (then `started` prints what the command says of it), and the
 * execution's events are printed live until it ends, then its result. Returns the exit code:
 * 0 COMPLETED, 1 another end, 3 --timeout first, 130 Ctrl-C first (the execution goes on).
 */
export async function startAndFollow(
  conn: ServiceConnection,
  executionId: string,
  start: () => Promise<void>,
  started: () => void,
  opts: FollowOptions,
): Promise<number> {
  const ns = conn.config.WF_NAMESPACE;
  const ac = new AbortController();
  let stoppedBy: "timeout" | "interrupt" | undefined;
  const stop = (why: "timeout" | "interrupt") => () => {
    stoppedBy ??= why;
    ac.abort();
  };
  const onSignal = stop("interrupt");
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const origin = Date.now();
  const events = followEvents(conn.js, ns, { executionId, since: origin - REPLAY_MARGIN_MS }, ac.signal);
  let pickupHint: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  let end: ExecutionEvent | undefined;
  try {
    await start();
    started();
    pickupHint = setTimeout(() => {
      console.error(
        `wf: no executor has picked up execution ${executionId} in ${PICKUP_HINT_MS / 1000} s: the service does not seem to be running ` +
          `on ${conn.url} with WF_NAMESPACE=${ns}. Start it with \`npm start\`; still waiting${opts.timeoutMs === undefined ? " (Ctrl-C to stop)" : " until --timeout"}.`,
      );
    }, PICKUP_HINT_MS);
    if (opts.timeoutMs !== undefined) deadline = setTimeout(stop("timeout"), opts.timeoutMs);
    for await (const e of events) {
      clearTimeout(pickupHint);
      if (opts.json) console.log(JSON.stringify(e));
      else for (const line of formatEvent(e, { origin })) console.log(`${relativeTime(e.at - origin)}  ${line}`);
      if (endedStatus(e.type)) {
        end = e;
        break;
      }
    }
  } finally {
    clearTimeout(pickupHint);
    clearTimeout(deadline);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }

  if (end === undefined) {
    if (stoppedBy === undefined) throw new Error(`the event stream closed before execution ${executionId} ended`);
    const why = stoppedBy === "timeout" ? `--timeout ${(opts.timeoutMs ?? 0) / 1000} s elapsed` : "stopped following";
    console.error(
      `wf: ${why}; execution ${executionId} continues in the service (follow it: wf tail --execution ${executionId})`,
    );
    return stoppedBy === "timeout" ? EXIT.timeout : EXIT.interrupted;
  }
  const result = await readResult(conn, end);
  console.log(opts.json ? JSON.stringify({ type: "result", ...result }) : formatResult(result));
  return result.status === "COMPLETED" ? EXIT.ok : EXIT.failed;
}

/** `--timeout SECONDS`, in milliseconds. */
export function parseTimeout(text: string): number {
  const seconds = Number(text);
  if (text.trim() === "" || !Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--timeout ${text}: give a number of seconds greater than 0`);
  }
  return seconds * 1000;
}

function relativeTime(ms: number): string {
  return `${ms < 0 ? "-" : "+"}${(Math.abs(ms) / 1000).toFixed(3)}s`;
}
