import { startExecution } from "@wf/shared/client";
import { isSubjectToken, newId, type ExecutionEvent } from "@wf/shared/execution";
import { toToken } from "@wf/shared/nats";
import type { Workflow } from "@wf/shared/workflow";
import { connectToService, type ServiceConnection } from "./connection";
import { formatResult, readResult } from "./execution-result";
import { followEvents } from "./follow-events";
import { TERMINAL_EVENTS, formatEvent } from "./format-event";
import { collectInputs } from "./run-inputs";
import { EXIT, UsageError, commandFlags } from "./usage";
import { loadWorkflowFile } from "./workflow-file";

export const RUN_HELP = `Usage: wf run <file> [options]

Validates a workflow file, starts an execution of it in the running service (workflow id
cli-<name>, trigger "console"), prints its events live until it ends, then its output.

Options:
  --var name=value   a workflow variable, once per variable: numbers and booleans as
                     text, arrays and objects as JSON (--var 'tags=["a","b"]')
  --owner ID         owner of the execution (default: local)
  --monitor          keep step inputs and logs; log lines are printed under their step
  --timeout SECONDS  stop waiting after this long; the execution goes on in the service
  --json             print the raw events as JSON lines, and last a line
                     {"type":"result","executionId","status","output","error"}
  -h, --help         this help

Ctrl-C stops following, not the execution: it goes on in the service.

Exit codes:
  0    the execution ended COMPLETED
  1    invalid workflow file, or the execution ended FAILED, CANCELLED or INTERRUPTED
  2    usage error: unknown flag, missing file, bad --var, NATS unreachable
  3    --timeout elapsed first
  130  Ctrl-C before the end`;

/** How long an execution may go unnoticed by every executor before we say none seems to run. */
const PICKUP_HINT_MS = 10_000;
/**
 * The events are replayed from a little before the start command, not followed from "now":
 * however the consumer's creation and the first events interleave, none is missed. The margin
 * absorbs clock skew with the server; the execution id (chosen here) filters out the rest.
 */
const REPLAY_MARGIN_MS = 60_000;

export async function runCommand(argv: string[]): Promise<number> {
  const flags = commandFlags(
    "run",
    RUN_HELP,
    argv,
    {
      var: { type: "string", multiple: true, default: [] },
      owner: { type: "string", default: "local" },
      monitor: { type: "boolean", default: false },
      timeout: { type: "string" },
      json: { type: "boolean", default: false },
    },
    true,
  );
  if (!flags) return EXIT.ok;
  const { values, positionals } = flags;
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError("wf run needs a workflow file\nsee: wf run --help");
  if (extra.length > 0) throw new UsageError(`wf run takes one file; unexpected: ${extra.join(" ")} (variables go in --var name=value)`);
  if (!isSubjectToken(values.owner)) {
    throw new UsageError(`--owner ${values.owner}: use 1 to 128 letters, digits, '_' or '-' (it is a NATS subject token)`);
  }
  const timeoutMs = values.timeout === undefined ? undefined : parseTimeout(values.timeout);

  const loaded = await loadWorkflowFile(file);
  if (!loaded.ok) {
    console.error(loaded.report);
    return EXIT.failed;
  }
  const inputs = collectInputs(loaded.workflow, values.var);
  const conn = await connectToService();
  try {
    return await runAndFollow(conn, loaded.workflow, inputs, {
      ownerId: values.owner,
      monitor: values.monitor,
      json: values.json,
      timeoutMs,
    });
  } finally {
    await conn.close();
  }
}

interface RunOptions {
  ownerId: string;
  monitor: boolean;
  json: boolean;
  timeoutMs: number | undefined;
}

async function runAndFollow(conn: ServiceConnection, workflow: Workflow, inputs: Record<string, unknown>, opts: RunOptions): Promise<number> {
  const ns = conn.config.WF_NAMESPACE;
  const executionId = newId();
  const workflowId = cliWorkflowId(workflow.name);
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
    await startExecution(conn.js, ns, {
      executionId,
      workflow: { id: workflowId, name: workflow.name, ownerId: opts.ownerId, version: null, definition: workflow },
      inputs,
      triggerSource: "console",
      enableMonitoring: opts.monitor,
    });
    if (!opts.json) console.log(`execution ${executionId} of workflow ${workflowId} (owner ${opts.ownerId}, namespace ${ns})`);
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
      if (TERMINAL_EVENTS.has(e.type)) {
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
    console.error(`wf: ${why}; execution ${executionId} continues in the service (follow it: wf tail --execution ${executionId})`);
    return stoppedBy === "timeout" ? EXIT.timeout : EXIT.interrupted;
  }
  const result = await readResult(conn, end);
  console.log(opts.json ? JSON.stringify({ type: "result", ...result }) : formatResult(result));
  return result.status === "COMPLETED" ? EXIT.ok : EXIT.failed;
}

/** Workflows run from a file have no stored record: their id is derived from the name. */
function cliWorkflowId(name: string): string {
  return `cli-${toToken(name)}`.slice(0, 128);
}

function parseTimeout(text: string): number {
  const seconds = Number(text);
  if (text.trim() === "" || !Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--timeout ${text}: give a number of seconds greater than 0`);
  }
  return seconds * 1000;
}

function relativeTime(ms: number): string {
  return `${ms < 0 ? "-" : "+"}${(Math.abs(ms) / 1000).toFixed(3)}s`;
}
