import { isSubjectToken } from "@wf/shared/execution";
import { streamNames, subjects } from "@wf/shared/nats";
import { connectToService } from "./connection";
import { followEvents } from "./follow-events";
import { formatEvent, isoTime } from "./format-event";
import { parseSince } from "./since";
import { EXIT, UsageError, commandFlags } from "./usage";

export const TAIL_HELP = `Usage: wf tail [options]

Follows execution events as the service publishes them on
<namespace>.evt.<owner>.<workflow>.<execution>.<type>, one line each:
"<time>  <execution (last 8 chars)>  <workflow>  <what happened>". Runs until Ctrl-C.

Options:
  --execution ID     only this execution
  --workflow ID      only this workflow (wf run uses cli-<name>)
  --owner ID         only this owner
  --since WHEN       replay from WHEN first: a duration back from now (30s, 10m, 1h30m, 2d)
                     or an ISO-8601 time (2026-11-21T10:00:00Z); default: new events only
  --json             print the raw events as JSON lines
  -h, --help         this help

The subject filter it follows is printed first (on stderr), for use with NATS tools:
nats sub '<filter>'.

Exit codes: 0 stopped with Ctrl-C; 2 usage error (unknown flag, bad id or --since, NATS
unreachable).`;

export async function tailCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("tail", TAIL_HELP, argv, {
    execution: { type: "string" },
    workflow: { type: "string" },
    owner: { type: "string" },
    since: { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values, positionals } = flags;
  if (positionals.length > 0) throw new UsageError(`wf tail takes no arguments; unexpected: ${positionals.join(" ")}`);
  const filter = {
    executionId: subjectToken("--execution", values.execution),
    workflowId: subjectToken("--workflow", values.workflow),
    ownerId: subjectToken("--owner", values.owner),
  };
  // "From now" is a start time too, taken before connecting: an event published once the
  // command began is shown even if it beats the consumer's creation.
  const since = values.since === undefined ? Date.now() : parseSince(values.since);

  const conn = await connectToService();
  const ns = conn.config.WF_NAMESPACE;
  const ac = new AbortController();
  const onSignal = () => ac.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const subject = subjects(ns).eventFilter(filter);
    console.error(
      `following ${subject} (stream ${streamNames(ns).evt}) on ${conn.url}` +
        `${values.since === undefined ? ", new events only" : `, from ${new Date(since).toISOString()}`}; ` +
        `with NATS tools: nats sub '${subject}'`,
    );
    for await (const e of followEvents(conn.js, ns, { ...filter, since }, ac.signal)) {
      if (values.json) {
        console.log(JSON.stringify(e));
        continue;
      }
      const prefix = `${isoTime(e.at)}  ${e.executionId.slice(-8)}  ${e.workflowId}`;
      for (const line of formatEvent(e)) console.log(`${prefix}  ${line}`);
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await conn.close();
  }
  if (!ac.signal.aborted) throw new Error("the event stream closed");
  return EXIT.ok;
}

/** Filters travel in subjects: a `.`, `*` or `>` in them would match other executions. */
function subjectToken(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && !isSubjectToken(value)) {
    throw new UsageError(`${flag} ${value}: use 1 to 128 letters, digits, '_' or '-' (it is a NATS subject token)`);
  }
  return value;
}
