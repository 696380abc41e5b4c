import { startExecution } from "@wf/shared/client";
import { DEBUG_IDLE_MAX_S, DebugRequest, isSubjectToken } from "@wf/shared/execution";
import { openConfiguredStore, type Store } from "@wf/shared/store";
import { WorkflowSchema, type Workflow } from "@wf/shared/workflow";
import { connectToService, type ServiceConnection } from "../connection";
import { collectInputs } from "../run-inputs";
import { newStartId } from "../start-id";
import { commandFlags, EXIT, UsageError } from "../usage";
import { loadWorkflowFile } from "../workflow-file";
import { BREAK_SPEC_HELP, parseBreakSpec } from "./break-spec";
import { LineReader } from "./line-reader";
import { PROMPT_HELP } from "./prompt";
import { DETACHED, runDebugSession } from "./session";

export const DEBUG_HELP = `Usage: wf debug <file> [options] --break SPEC...
       wf debug --workflow ID [options] --break SPEC...
       wf debug --attach EXECUTION_ID

Runs a workflow (a file, or a stored workflow with --workflow) in the service with breakpoints,
prints its events, and at each pause prints where and why, what other branches wait with behind
it, and reads commands at a prompt. The pause is kept by the service: detaching (q, or the end
of the input) leaves the run paused, and --attach comes back to it, from any terminal.

Options:
  --break SPEC       a breakpoint, once per breakpoint (see below)
  --var name=value   a workflow variable, as for wf run
  --owner ID         owner of the execution (default: local; a stored workflow's owner with --workflow)
  --idle SECONDS     a pause with no command for this long cancels the run (default 3600, max ${DEBUG_IDLE_MAX_S})
  --attach ID        come back to a paused debug run
  -h, --help         this help

Breakpoints:
${BREAK_SPEC_HELP}

${PROMPT_HELP}

Exit codes: 0 the run ended COMPLETED, or detached; 1 it ended otherwise, or the file is invalid;
2 usage error.`;

export async function debugCommand(argv: string[]): Promise<number> {
  const flags = commandFlags(
    "debug",
    DEBUG_HELP,
    argv,
    {
      break: { type: "string", multiple: true, default: [] },
      var: { type: "string", multiple: true, default: [] },
      owner: { type: "string" },
      workflow: { type: "string" },
      idle: { type: "string" },
      attach: { type: "string" },
    },
    true,
  );
  if (!flags) return EXIT.ok;
  const { values, positionals } = flags;
  if (positionals.length > 1)
    throw new UsageError(`wf debug takes one file; unexpected: ${positionals.slice(1).join(" ")}`);
  const [file] = positionals;
  const sources = [file !== undefined, values.workflow !== undefined, values.attach !== undefined].filter(
    Boolean,
  ).length;
  if (sources !== 1)
    throw new UsageError(
      "wf debug needs one of: a workflow file, --workflow ID or --attach EXECUTION_ID\nsee: wf debug --help",
    );
  if (values.owner !== undefined && !isSubjectToken(values.owner))
    throw new UsageError(`--owner ${values.owner}: use 1 to 128 letters, digits, '_' or '-'`);
  const breakpoints = values.break.map(parseBreakSpec);
  const idleTimeout = values.idle === undefined ? undefined : idleSeconds(values.idle);

  const loaded = file === undefined ? undefined : await loadWorkflowFile(file);
  if (loaded && !loaded.ok) {
    console.error(loaded.report);
    return EXIT.failed;
  }
  const conn = await connectToService();
  const store = await openConfiguredStore(conn.config, conn.nc);
  const reader = new LineReader();
  try {
    if (values.attach !== undefined) return await attach(conn, store, reader, values.attach, values.owner ?? "local");
    const target = loaded?.ok
      ? {
          id: `cli-${loaded.workflow.name}`.slice(0, 128),
          workflow: loaded.workflow,
          ownerId: values.owner ?? "local",
          version: null,
        }
      : await storedWorkflow(store, values.workflow ?? "");
    const ownerId = values.owner ?? target.ownerId;
    const executionId = await newStartId(conn, ownerId);
    const since = Date.now();
    await startExecution(conn.js, conn.config.WF_NAMESPACE, {
      executionId,
      workflow: {
        id: target.id,
        name: target.workflow.name,
        ownerId,
        version: target.version,
        definition: target.workflow,
      },
      inputs: collectInputs(target.workflow, values.var),
      triggerSource: "console",
      enableMonitoring: true,
      debug: DebugRequest.parse({ breakpoints, ...(idleTimeout ? { idleTimeout } : {}) }),
    });
    console.log(
      `debugging execution ${executionId} of workflow ${target.id} (${breakpoints.length} breakpoint${breakpoints.length === 1 ? "" : "s"})`,
    );
    return exitCode(
      await runDebugSession(
        { conn, store, executionId, by: values.owner ?? target.ownerId, reader },
        since - 60_000,
        null,
      ),
    );
  } finally {
    reader.close();
    await store.close();
    await conn.close();
  }
}

async function attach(
  conn: ServiceConnection,
  store: Store,
  reader: LineReader,
  executionId: string,
  by: string,
): Promise<number> {
  const snap = (await store.executions.get(executionId))?.value;
  if (!snap) throw new UsageError(`no execution ${executionId}`);
  if (!snap.debug) throw new UsageError(`execution ${executionId} is not a debug run`);
  console.log(`attached to execution ${executionId} (${snap.status}${snap.debug.pause ? ", paused" : ""})`);
  return exitCode(await runDebugSession({ conn, store, executionId, by, reader }, Date.now(), snap.debug.pause));
}

async function storedWorkflow(
  store: Store,
  id: string,
): Promise<{ id: string; workflow: Workflow; ownerId: string; version: number | null }> {
  const record = (await store.workflows.get(id))?.value;
  if (!record) throw new UsageError(`--workflow ${id}: no stored workflow with this id`);
  return {
    id: record.id,
    workflow: WorkflowSchema.parse(record.definition),
    ownerId: record.ownerId,
    version: record.version,
  };
}

function idleSeconds(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > DEBUG_IDLE_MAX_S)
    throw new UsageError(`--idle ${text}: seconds, from 1 to ${DEBUG_IDLE_MAX_S}`);
  return n;
}

/** Detaching leaves the run paused, on purpose: a success. */
function exitCode(code: number): number {
  return code === DETACHED ? EXIT.ok : code;
}
