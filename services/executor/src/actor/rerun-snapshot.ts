import { AlreadyExistsError } from "@wf/shared/errors";
import { derivedId, planRerun, type ExecutionSnapshot, type StepState } from "@wf/shared/execution";
import type { ArtifactRepo, ExecutionRepo } from "@wf/shared/store";
import type { Workflow } from "@wf/shared/workflow";
import type { RunCommitter } from "../run/committer";

/** What a rerun reads of its source, and the artifact records it adds for the new execution. */
export interface RerunStore {
  executions: Pick<ExecutionRepo, "get">;
  artifacts: Pick<ArtifactRepo, "get" | "create">;
}

/**
 * Fills a rerun's first snapshot with the states of the steps it reuses, marked `reused`: each step
 * before `rerunFrom` and all nested in it, as the source recorded them, with `savedUsage` and records
 * of their artifacts. The plan is made again here from the stored source, whatever the starter
 * checked: a command may come from any client. Returns false when the rerun cannot be made (it has
 * then ended FAILED, saying why); does nothing for an execution that is no rerun (docs/rerun.md#how-it-works).
 */
export async function reuseSourceSteps(
  c: Pick<RunCommitter, "snap" | "emit">,
  workflow: Workflow,
  store: RerunStore,
): Promise<boolean> {
  const s = c.snap;
  if (s.rerunOf === null || s.rerunFrom === null) return true;
  const source = await store.executions.get(s.rerunOf);
  const planned = source ? planRerun(source.value, s.rerunFrom, workflow) : null;
  if (!source || !planned || !planned.ok) {
    failRerun(
      c,
      `cannot rerun execution ${s.rerunOf}: ${planned && !planned.ok ? planned.problem.message : "it does not exist"}`,
    );
    return false;
  }
  const { plan } = planned;
  // Reused as the later steps saw them, edits included (the source then reproduces), and marked as standing on an edit.
  const edited = new Set([...plan.editedPaths, ...plan.editedSteps]);
  for (const path of plan.reusedPaths) {
    const st: StepState = structuredClone(source.value.steps[path]!);
    st.reused = true;
    if (edited.has(path)) st.edited = true;
    if (st.artifacts !== undefined) st.artifacts = await shareArtifacts(store.artifacts, s, st.artifacts);
    s.steps[path] = st;
  }
  s.completedSteps = plan.reusedSteps.filter((name) => s.steps[name]!.status === "COMPLETED").length;
  s.savedUsage = plan.savedUsage;
  for (const name of plan.reusedSteps) {
    const st = s.steps[name]!;
    c.emit("step_reused", name, {
      status: st.status,
      output: st.output,
      usage: st.usage,
      rerunOf: plan.rerunOf,
      savedUsage: plan.savedUsage,
      ...(st.edited ? { edited: true } : {}),
    });
  }
  return true;
}

/**
 * Records of the new execution for the source's artifact files (the same stored objects). Their
 * ids derive from the rerun and the source artifact, so a start handled twice (a redelivery)
 * makes each record once; an artifact whose record is gone is left out.
 */
export async function shareArtifacts(
  artifacts: RerunStore["artifacts"],
  s: ExecutionSnapshot,
  ids: readonly string[],
): Promise<string[]> {
  const shared: string[] = [];
  for (const id of ids) {
    const original = await artifacts.get(id);
    if (!original) continue;
    const record = {
      ...original.value,
      id: derivedId(original.value.createdAt, `rerun:${s.id}:${id}`),
      executionId: s.id,
    };
    try {
      await artifacts.create(record);
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
    }
    shared.push(record.id);
  }
  return shared;
}

/** Ends an execution that could not be built from its source FAILED, saying why. */
export function failRerun(c: Pick<RunCommitter, "snap" | "emit">, error: string): void {
  const s = c.snap;
  s.status = "FAILED";
  s.error = error;
  s.completedAt = Date.now();
  s.holder = null;
  c.emit("exec_failed", undefined, { status: s.status, error });
}
