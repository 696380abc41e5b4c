import { planStepTest, StepState } from "@wf/shared/execution";
import type { Workflow } from "@wf/shared/workflow";
import type { RunCommitter } from "../run/committer";
import { failRerun, shareArtifacts, type RerunStore } from "./rerun-snapshot";

/**
 * Fills a step test's first snapshot with its context: the states of the steps before the tested
 * one that its source completed, as recorded (marked `reused`), with `savedUsage` and records of
 * their artifacts, in the write of `exec_started`; a step with a pin carried in the command takes
 * it instead, COMPLETED and marked `pinned`. Planned again from the stored source, whatever the
 * starter checked. Returns false when the test cannot be made (it has then ended FAILED);
 * does nothing for another execution or a test without a source (docs/rerun.md#testing-one-step).
 */
export async function takeStepTestContext(
  c: Pick<RunCommitter, "snap" | "emit">,
  workflow: Workflow,
  store: RerunStore,
): Promise<boolean> {
  const s = c.snap;
  if (s.stepTest === null) return true;
  const { step, contextFrom, itemIndexes, pinned = {} } = s.stepTest;
  const found = contextFrom === null ? null : await store.executions.get(contextFrom);
  // Another owner's execution is never a context, whatever a client sent.
  const source = found && found.value.ownerId === s.ownerId ? found.value : null;
  const fail = (why: string): false => {
    failRerun(c, `cannot test step \`${step}\`: ${why}`);
    return false;
  };
  if (contextFrom !== null && source === null) return fail(`execution ${contextFrom} does not exist`);
  const planned = planStepTest(workflow, s.workflowId, step, source, { itemIndexes, pinned });
  if (!planned.ok) return fail(planned.problem.message);
  const { plan } = planned;
  const recorded = source?.steps ?? {};
  for (const path of plan.reusedPaths) {
    const st: StepState = structuredClone(recorded[path]!);
    st.reused = true;
    if (st.artifacts !== undefined) st.artifacts = await shareArtifacts(store.artifacts, s, st.artifacts);
    s.steps[path] = st;
  }
  for (const name of plan.pinnedSteps) {
    const type = workflow.steps.find((st) => st.name === name)!.type;
    s.steps[name] = StepState.parse({
      name,
      type,
      status: "COMPLETED",
      output: pinned[name],
      reused: true,
      pinned: true,
    });
  }
  s.savedUsage = plan.savedUsage;
  if (s.stepTest.estimateOnly === true) s.stepTest.lastUsage = source?.steps[plan.path]?.usage ?? null;
  for (const path of plan.reusedSteps) {
    const st = s.steps[path]!;
    c.emit("step_reused", path, { status: st.status, output: st.output, usage: st.usage, rerunOf: contextFrom });
  }
  for (const name of plan.pinnedSteps)
    c.emit("step_reused", name, { status: "COMPLETED", output: pinned[name], pinned: true, rerunOf: null });
  return true;
}
