import { existsSync } from "node:fs";
import { startExecution } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import { planStepTest, sourceInputs, type ExecutionSnapshot, type StepTestPlan } from "@wf/shared/execution";
import type { Store } from "@wf/shared/store";
import { parseWorkflow, type Workflow } from "@wf/shared/workflow";
import { parseTimeout, startAndFollow } from "./follow-execution";
import { collectInputs } from "./run-inputs";
import { newStartId } from "./start-id";
import { withStore } from "./store-connection";
import { EXIT, UsageError } from "./usage";
import { cliWorkflowId } from "./workflow-id";
import { loadWorkflowFile } from "./workflow-file";

export interface StepTestOptions {
  step: string;
  fromExecution: string | undefined;
  itemIndexes: readonly number[];
  vars: readonly string[];
  owner: string;
  json: boolean;
  timeout: string | undefined;
}

/** The workflow a step test runs: a file's (not stored), or a stored workflow's latest version. */
interface Tested {
  id: string;
  ownerId: string;
  version: number | null;
  workflow: Workflow;
}

/**
 * `wf run <file-or-id> --step NAME [--from-execution ID] [--item N]`: starts a step test as the console does
 * (docs/rerun.md#testing-one-step), publishing its start command itself as `wf rerun` does, and
 * follows it. The source is read from the store, so it must be an execution of the same workflow.
 */
export async function stepTestCommand(target: string, opts: StepTestOptions): Promise<number> {
  const timeoutMs = opts.timeout === undefined ? undefined : parseTimeout(opts.timeout);
  const fromFile = existsSync(target);
  const loaded = fromFile ? await loadWorkflowFile(target) : null;
  if (loaded && !loaded.ok) {
    console.error(loaded.report);
    return EXIT.failed;
  }
  return withStore(async (store, conn) => {
    const tested = loaded
      ? { id: cliWorkflowId(loaded.workflow.name), ownerId: opts.owner, version: null, workflow: loaded.workflow }
      : await storedWorkflow(store, target);
    const source = opts.fromExecution === undefined ? null : await sourceOf(store, tested, opts.fromExecution);
    const plan = planOrRefuse(tested, opts.step, source, opts.itemIndexes);
    const inputs =
      opts.vars.length === 0 && source
        ? sourceInputs(source, tested.workflow)
        : collectInputs(tested.workflow, opts.vars);
    const executionId = await newStartId(conn, tested.ownerId);
    const start = async () => {
      await startExecution(conn.js, conn.config.WF_NAMESPACE, {
        executionId,
        workflow: { ...tested, name: tested.workflow.name, definition: tested.workflow },
        inputs,
        triggerSource: "step_test",
        enableMonitoring: true,
        stepTest: { step: plan.step, contextFrom: plan.contextFrom, itemIndexes: plan.itemIndexes },
      });
    };
    const started = () => {
      const { step, path, contextFrom, reusedSteps } = plan;
      if (opts.json)
        console.log(JSON.stringify({ type: "step_test", executionId, step, path, contextFrom, reusedSteps }));
      else console.log(`execution ${executionId} tests step ${path}${contextText(plan)}`);
    };
    return startAndFollow(conn, executionId, start, started, { json: opts.json, timeoutMs });
  });
}

async function storedWorkflow(store: Store, id: string): Promise<Tested> {
  const stored = await store.workflows.get(id);
  if (!stored) throw new UsageError(`${id}: no such workflow file, and no stored workflow with this id`);
  const parsed = parseWorkflow(stored.value.yaml);
  if (!parsed.ok) throw new WfError("WORKFLOW_INVALID", `workflow ${id}'s latest version no longer validates`);
  return { id, ownerId: stored.value.ownerId, version: stored.value.version, workflow: parsed.workflow };
}

/** An execution of the tested workflow under its owner: any other is answered as none. */
async function sourceOf(store: Store, tested: Tested, id: string): Promise<ExecutionSnapshot> {
  const source = (await store.executions.get(id))?.value;
  if (!source || source.workflowId !== tested.id || source.ownerId !== tested.ownerId)
    throw new WfError("NOT_FOUND", `no execution ${id} of workflow ${tested.id} (owner ${tested.ownerId})`);
  return source;
}

/** An unknown step is a bad --step (exit 2); what the source refuses is the store's answer (exit 1). */
function planOrRefuse(
  tested: Tested,
  step: string,
  source: ExecutionSnapshot | null,
  itemIndexes: readonly number[],
): StepTestPlan {
  const planned = planStepTest(tested.workflow, tested.id, step, source, { itemIndexes });
  if (planned.ok) return planned.plan;
  if (planned.problem.kind === "unknown_step") throw new UsageError(`--step ${step}: ${planned.problem.message}`);
  if (planned.problem.kind === "bad_items") throw new UsageError(`--item: ${planned.problem.message}`);
  throw new WfError("CONFLICT", planned.problem.message);
}

function contextText(plan: StepTestPlan): string {
  if (plan.contextFrom === null) return " (no context: variables only)";
  const reused = plan.reusedSteps.length === 0 ? "no step" : plan.reusedSteps.join(", ");
  return ` on execution ${plan.contextFrom} (reusing ${reused})`;
}
