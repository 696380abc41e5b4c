import { startExecution } from "@wf/shared/client";
import { isSubjectToken } from "@wf/shared/execution";
import type { Workflow } from "@wf/shared/workflow";
import { connectToService, type ServiceConnection } from "./connection";
import { parseTimeout, startAndFollow } from "./follow-execution";
import { collectInputs } from "./run-inputs";
import { newStartId } from "./start-id";
import { stepTestCommand } from "./step-test";
import { EXIT, UsageError, commandFlags } from "./usage";
import { loadWorkflowFile } from "./workflow-file";
import { cliWorkflowId } from "./workflow-id";

export const RUN_HELP = `Usage: wf run <file> [options]
       wf run <file-or-workflow-id> --step NAME [--from-execution ID] [--item N] [options]

Validates a workflow file, starts an execution of it in the running service (workflow id
cli-<name>, trigger "console"), prints its events live until it ends, then its output.

With --step, runs that step alone (trigger "step_test"), of the file or of a stored workflow's
latest version: the execution ends with the step, its output being the step's. A step inside a
foreach runs in one item of it (--item, 0 by default), its items evaluated anew. With
--from-execution, the steps before it that that finished execution (of the same workflow and
owner) completed are taken from it as recorded, even if the file changed them, and its
variables are the default ones; without, the step sees only variables. Step inputs and logs
are kept.

Options:
  --var name=value   a workflow variable, once per variable: numbers and booleans as
                     text, arrays and objects as JSON (--var 'tags=["a","b"]')
  --owner ID         owner of the execution (default: local; a stored workflow's own owner)
  --step NAME        run only this step (a step test)
  --from-execution ID  with --step: take the steps before it from this finished execution
  --item N           with --step, for a step inside a foreach: the item to run it in, from 0;
                     once per foreach holding it, outermost first
  --monitor          keep step inputs and logs; log lines are printed under their step
  --timeout SECONDS  stop waiting after this long; the execution goes on in the service
  --json             print the raw events as JSON lines, and last a line
                     {"type":"result","executionId","status","output","error"}
  -h, --help         this help

Ctrl-C stops following, not the execution: it goes on in the service.

Exit codes:
  0    the execution ended COMPLETED
  1    invalid workflow file, --from-execution is no finished execution of the workflow, or the
       execution ended FAILED, CANCELLED or INTERRUPTED
  2    usage error: unknown flag, missing file, bad --var, no such --step, bad --item, NATS unreachable
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
      step: { type: "string" },
      "from-execution": { type: "string" },
      item: { type: "string", multiple: true, default: [] },
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
  if (values.step !== undefined) {
    const { step, var: vars, owner, json, timeout } = values;
    const itemIndexes = values.item.map(itemIndex);
    return stepTestCommand(file, {
      step,
      fromExecution: values["from-execution"],
      itemIndexes,
      vars,
      owner,
      json,
      timeout,
    });
  }
  if (values["from-execution"] !== undefined) throw new UsageError("--from-execution goes with --step NAME");
  if (values.item.length > 0) throw new UsageError("--item goes with --step NAME");
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

async function runAndFollow(
  conn: ServiceConnection,
  workflow: Workflow,
  inputs: Record<string, unknown>,
  opts: RunOptions,
): Promise<number> {
  const ns = conn.config.WF_NAMESPACE;
  const executionId = await newStartId(conn, opts.ownerId);
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

function itemIndex(text: string): number {
  if (!/^\d{1,7}$/.test(text)) throw new UsageError(`--item ${text}: give an item's index, a whole number from 0`);
  return Number(text);
}
