import { CasConflictError, type RecordTooLargeError, WfError } from "@wf/shared/errors";
import { storeWorkflowUpdate, type WorkflowRecord } from "@wf/shared/store";
import { requireWriter, visibleWorkflow } from "../access/roles";
import type { EdgeContext } from "../context";

/** What a workflow record keeps beside its YAML: a change of it is not a new version. */
type BesideYaml = Partial<Pick<WorkflowRecord, "layout" | "pins">>;

/**
 * Writes what `change` makes of the stored record's fields beside the YAML, for a user who may
 * edit the workflow (`doing` names the work in a viewer's 403). A concurrent write, such as a
 * save of the YAML, is not this write's business: it reads again and keeps it, five tries. Where
 * the record would pass the store's limit, the oldest kept versions make room, as for a save; with
 * none left, `tooLarge` says what to fix (by default, that the workflow is too large).
 */
export async function updateBesideYaml<T>(
  ctx: EdgeContext,
  id: string,
  userId: string,
  names: { doing: string; stored: string; tooLarge?: (err: RecordTooLargeError) => WfError },
  change: (w: WorkflowRecord) => Promise<{ fields: BesideYaml; answer: T }>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const { workflow, role } = await visibleWorkflow(ctx.store, id, userId);
    requireWriter(role, names.doing);
    const { fields, answer } = await change(workflow.value);
    try {
      await storeWorkflowUpdate(ctx.store, { ...workflow.value, ...fields }, workflow.version, names.tooLarge);
      return answer;
    } catch (err) {
      if (!(err instanceof CasConflictError)) throw err;
      if (attempt >= 5)
        throw new WfError("UNAVAILABLE", `the workflow kept changing while ${names.stored} stored: retry`);
    }
  }
}
