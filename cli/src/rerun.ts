import { startExecution } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import { planRerun, sourceInputs, type ExecutionSnapshot, type RerunPlan, type Usage } from "@wf/shared/execution";
import { ownerPlan, storeNextVersion } from "@wf/shared/store";
import { resolveVariables, type Workflow } from "@wf/shared/workflow";
import type { ServiceConnection } from "./connection";
import { parseTimeout, startAndFollow } from "./follow-execution";
import { required } from "./flags";
import { newStartId } from "./start-id";
import { withStore } from "./store-connection";
import { EXIT, UsageError, commandFlags } from "./usage";
import { loadWorkflowFile } from "./workflow-file";

export const RERUN_HELP = `Usage: wf rerun <executionId> --from <step> [options]

Reruns a finished execution from one of its top-level steps, in the running service (trigger
"console"). The steps before it do not run again: their results (outputs, artifacts, token
usage) are the execution's, marked reused, so no code runs and no LLM is called for them. The
variables are the ones the execution ran with. Prints the new execution's events live until it
ends, then its output, as wf run does.

Options:
  --from STEP        the top-level step to run again from (required)
  --file FILE        run this edited workflow file instead; the steps before --from must be
                     unchanged. A stored workflow gets it as its next version
  --plan             print what would be reused and what would run, and the tokens and cost
                     the reuse saves; start nothing
  --timeout SECONDS  stop waiting after this long; the execution goes on in the service
  --json             print a line {"type":"rerun","executionId","rerunOf","fromStep",
                     "reusedSteps","savedUsage","editedSteps"}, then the raw events and the result as
                     wf run --json does; with --plan, the plan as one JSON document
  -h, --help         this help

Exit codes:
  0    the rerun ended COMPLETED (with --plan: the plan was printed)
  1    no such execution, it has not finished, a step before --from did not complete or
       differs in --file, --file has mistakes, or the rerun ended FAILED, CANCELLED or
       INTERRUPTED
  2    usage error: unknown flag, missing id or --from, no such top-level step, NATS unreachable
  3    --timeout elapsed first
  130  Ctrl-C before the end`;

export async function rerunCommand(argv: string[]): Promise<number> {
  const flags = commandFlags(
    "rerun",
    RERUN_HELP,
    argv,
    {
      from: { type: "string" },
      file: { type: "string" },
      plan: { type: "boolean", default: false },
      timeout: { type: "string" },
      json: { type: "boolean", default: false },
    },
    true,
  );
  if (!flags) return EXIT.ok;
  const { values, positionals } = flags;
  const [executionId, ...extra] = positionals;
  if (executionId === undefined)
    throw new UsageError("wf rerun needs the id of the execution to rerun\nsee: wf rerun --help");
  if (extra.length > 0) throw new UsageError(`wf rerun takes one execution id; unexpected: ${extra.join(" ")}`);
  const { from } = required("rerun", values, "from");
  const timeoutMs = values.timeout === undefined ? undefined : parseTimeout(values.timeout);
  const edited = values.file === undefined ? null : await loadWorkflowFile(values.file);
  if (edited && !edited.ok) {
    console.error(edited.report);
    return EXIT.failed;
  }

  return withStore(async (store, conn) => {
    const source = await store.executions.get(executionId);
    if (!source) throw new WfError("NOT_FOUND", `no execution ${executionId}`);
    // An edited file is a save (it becomes the next version), held to the owner's plan as `wf workflow import` is.
    if (edited) {
      const mistakes = edited.mistakesFor(await ownerPlan(store.users, source.value.ownerId));
      if (mistakes !== null) {
        console.error(mistakes);
        return EXIT.failed;
      }
    }
    const plan = planOrRefuse(source.value, from, edited?.workflow);
    if (values.plan) {
      printPlan(plan, values.json);
      return EXIT.ok;
    }
    const version = edited
      ? await storeNextVersion(store, source.value.workflowId, source.value.ownerId, {
          yaml: edited.text,
          workflow: edited.workflow,
        })
      : source.value.workflowVersion;
    return rerunAndFollow(conn, source.value, plan, version, { json: values.json, timeoutMs });
  });
}

/** An unknown step is a bad --from (exit 2); what the execution's state refuses is the store's answer (exit 1). */
function planOrRefuse(source: ExecutionSnapshot, fromStep: string, workflow: Workflow | undefined): RerunPlan {
  const planned = planRerun(source, fromStep, workflow);
  if (planned.ok) return planned.plan;
  if (planned.problem.kind === "unknown_step") throw new UsageError(`--from ${fromStep}: ${planned.problem.message}`);
  throw new WfError("CONFLICT", planned.problem.message);
}

async function rerunAndFollow(
  conn: ServiceConnection,
  source: ExecutionSnapshot,
  plan: RerunPlan,
  version: number | null,
  opts: { json: boolean; timeoutMs: number | undefined },
): Promise<number> {
  const inputs = sourceInputs(source, plan.workflow);
  const resolved = resolveVariables(plan.workflow, inputs);
  if (!resolved.ok)
    throw new WfError(
      "VALIDATION_FAILED",
      `the workflow to run does not take the execution's variables: ${resolved.errors.map((e) => e.message).join("; ")}`,
    );
  const executionId = await newStartId(conn, source.ownerId);
  const start = async () => {
    await startExecution(conn.js, conn.config.WF_NAMESPACE, {
      executionId,
      workflow: {
        id: source.workflowId,
        name: plan.workflow.name,
        ownerId: source.ownerId,
        version,
        definition: plan.workflow,
      },
      inputs,
      triggerSource: "console",
      enableMonitoring: source.enableMonitoring,
      rerun: { of: source.id, fromStep: plan.fromStep },
    });
  };
  const started = () => {
    const { rerunOf, fromStep, reusedSteps, savedUsage, editedSteps } = plan;
    if (opts.json)
      console.log(
        JSON.stringify({ type: "rerun", executionId, rerunOf, fromStep, reusedSteps, savedUsage, editedSteps }),
      );
    else
      console.log(
        [`execution ${executionId} reruns ${rerunOf} from step ${fromStep}${reused(plan)}`, ...editedLine(plan)].join(
          "\n",
        ),
      );
  };
  return startAndFollow(conn, executionId, start, started, opts);
}

function printPlan(plan: RerunPlan, json: boolean): void {
  const { rerunOf, fromStep, reusedSteps, rerunSteps, savedUsage, editedSteps } = plan;
  if (json) {
    console.log(JSON.stringify({ rerunOf, fromStep, reusedSteps, rerunSteps, savedUsage, editedSteps }, null, 2));
    return;
  }
  console.log(
    [
      `rerun of execution ${rerunOf} from step ${fromStep}`,
      `  reused: ${reusedSteps.join(", ") || "(none)"}`,
      ...editedLine(plan),
      `  run:    ${rerunSteps.join(", ")}`,
      `  saves:  ${usageText(savedUsage)}`,
    ].join("\n"),
  );
}

/** The reused steps standing on a debugger's edit, when there are some: their outputs are not what they gave. */
function editedLine(plan: RerunPlan): string[] {
  return plan.editedSteps.length === 0
    ? []
    : [`  edited: ${plan.editedSteps.join(", ")} (reused as the debugger's set left them)`];
}

function reused(plan: RerunPlan): string {
  return plan.reusedSteps.length === 0
    ? ""
    : ` (reusing ${plan.reusedSteps.join(", ")}; saves ${usageText(plan.savedUsage)})`;
}

function usageText(u: Usage): string {
  return `${u.promptTokens} prompt + ${u.completionTokens} completion tokens${u.costUsd > 0 ? ` ($${u.costUsd})` : ""}`;
}
