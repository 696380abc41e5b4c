import { inOwnerLane, newId, TERMINAL_STATUSES } from "@wf/shared/execution";
import type { WorkflowCallStep } from "@wf/shared/workflow";
import type { Scope } from "../scope";
import type { StepContext, StepKind } from "./step-kind";

/** A `workflow` step: its attempt starts a child execution and parks until the child ends. */
export const workflowCallStep: StepKind<WorkflowCallStep> = {
  input: renderInputs,
  async run(ctx, step, { path, state: st, scope, input }) {
    const { committer, effects } = ctx;
    if (st.childExecutionId === null) {
      // In the parent's owner's start lane: whoever fans out waits in their own lane.
      st.childExecutionId = inOwnerLane(newId(), committer.snap.ownerId);
      committer.emit("step_child", path, { childExecutionId: st.childExecutionId, workflowId: step.workflow });
      // Recorded before the start is published: a crash in between re-publishes the same child.
      await committer.flush();
    }
    const child = await effects.loadExecution(st.childExecutionId);
    if (!child) {
      const inputs = input ? input.value : await renderInputs(ctx, step, scope);
      const error = await effects.startChild(
        step.workflow,
        st.childExecutionId,
        path,
        inputs as Record<string, unknown>,
        ctx.debug?.childDebug(path),
      );
      if (error) {
        st.childExecutionId = null;
        return { kind: "failed", error: `step \`${step.name}\`: ${error}`, retryable: false };
      }
      return { kind: "parked" };
    }
    if (!TERMINAL_STATUSES.has(child.status)) return { kind: "parked" };
    if (child.status === "COMPLETED") return { kind: "completed", output: child.output ?? null };
    // A new attempt starts a new child execution.
    st.childExecutionId = null;
    return {
      kind: "failed",
      error: `step \`${step.name}\`: sub-workflow ${step.workflow} execution ${child.id} ended ${child.status}${child.error ? `: ${child.error}` : ""}`,
      retryable: true,
    };
  },
};

/** The sub-workflow's inputs, templates evaluated. */
function renderInputs(ctx: StepContext, step: WorkflowCallStep, scope: Scope): Promise<unknown> {
  return step.inputs === undefined ? Promise.resolve({}) : ctx.render(step.inputs, scope);
}
