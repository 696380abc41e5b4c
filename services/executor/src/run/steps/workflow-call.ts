import { TERMINAL_STATUSES } from "@wf/shared/execution";
import type { WorkflowCallStep } from "@wf/shared/workflow";
import type { Scope } from "../scope";
import { untilDue } from "../until-due";
import type { Attempt, StepAt, StepContext, StepKind } from "./step-kind";
import { beginWait } from "./wait";

/** A `workflow` step: its attempt starts a child execution and parks until the child ends. */
export const workflowCallStep: StepKind<WorkflowCallStep> = {
  input: renderInputs,
  async run(ctx, step, at) {
    const { path, state: st, scope } = at;
    const { committer, effects } = ctx;
    if (st.childExecutionId === null) {
      // In one of the parent's owner's start lanes: whoever fans out waits in their own lanes.
      st.childExecutionId = effects.newChildId();
      committer.emit("step_child", path, { childExecutionId: st.childExecutionId, workflowId: step.workflow });
      // Recorded before the start is published: a crash in between re-publishes the same child.
      await committer.flush();
    }
    // Put off by the owner's sub-workflow starts this minute: the child is not started yet.
    if (st.waitUntil !== null) {
      // Replayed, the step wrote nothing first: a result owed to it (oweWrite) is written before its timer is armed
      // again (untilDue), or before that child is started (below), and else by the park's write.
      if ((await untilDue(effects, committer, path, st.waitUntil, scope.signal)) === "parked")
        return { kind: "parked" };
      st.waitUntil = null;
    }
    const child = await effects.loadExecution(st.childExecutionId);
    if (!child) {
      // Its start not published (a crash after its id's write, on a replay that wrote nothing first): a result owed to
      // the step is written before that child is started.
      await committer.writeOwed();
      return startChild(ctx, step, at, st.childExecutionId);
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

/**
 * Starts the child `childId`, or waits while the owner's sub-workflow starts this minute are spent and then asks again:
 * a fan-out of sub-workflows starts at the owner's plan's pace, where failing would end a legitimate one.
 */
async function startChild(ctx: StepContext, step: WorkflowCallStep, at: StepAt, childId: string): Promise<Attempt> {
  const { path, state: st, scope, input } = at;
  const inputs = input ? input.value : await renderInputs(ctx, step, scope);
  for (;;) {
    const start = await ctx.effects.startChild(
      step.workflow,
      childId,
      path,
      inputs as Record<string, unknown>,
      ctx.debug?.childDebug(path),
    );
    if (start.kind === "refused") {
      st.childExecutionId = null;
      return { kind: "failed", error: `step \`${step.name}\`: ${start.error}`, retryable: false };
    }
    if (start.kind === "started") return { kind: "parked" };
    // A run woken after a crash before the wait was recorded asks again.
    if ((await beginWait(ctx, step, at, start.until, "subworkflow_budget")) === "parked") return { kind: "parked" };
    st.waitUntil = null;
  }
}

/** The sub-workflow's inputs, templates evaluated. */
function renderInputs(ctx: StepContext, step: WorkflowCallStep, scope: Scope): Promise<unknown> {
  return step.inputs === undefined ? Promise.resolve({}) : ctx.render(step.inputs, scope);
}
