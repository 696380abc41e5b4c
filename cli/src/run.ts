import { startExecution } from "@wf/shared/client";
import { isSubjectToken, newId } from "@wf/shared/execution";
import { toToken } from "@wf/shared/nats";
import type { Workflow } from "@wf/shared/workflow";
import { connectToService, type ServiceConnection } from "./connection";
import { parseTimeout, startAndFollow } from "./follow-execution";
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
  if (extra.length > 0)
    throw new UsageError(`wf run takes one file; unexpected: ${extra.join(" ")} (variables go in --var name=value)`);
  if (!isSubjectToken(values.owner)) {
    throw new UsageError(
      `--owner ${values.owner}: use 1 to 128 letters, digits, '_' or '-' (it is a NATS subject token)`,
    );
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

function runAndFollow(
  conn: ServiceConnection,
  workflow: Workflow,
  inputs: Record<string, unknown>,
  opts: RunOptions,
): Promise<number> {
  const ns = conn.config.WF_NAMESPACE;
  const executionId = newId();
  const workflowId = cliWorkflowId(workflow.name);
  const start = async () => {
    await startExecution(conn.js, ns, {
      executionId,
      workflow: { id: workflowId, name: workflow.name, ownerId: opts.ownerId, version: null, definition: workflow },
      inputs,
      triggerSource: "console",
      enableMonitoring: opts.monitor,
    });
  };
  const started = () => {
    if (!opts.json)
      console.log(`execution ${executionId} of workflow ${workflowId} (owner ${opts.ownerId}, namespace ${ns})`);
  };
  return startAndFollow(conn, executionId, start, started, opts);
}

/** Workflows run from a file have no stored record: their id is derived from the name. */
function cliWorkflowId(name: string): string {
  return `cli-${toToken(name)}`.slice(0, 128);
}
