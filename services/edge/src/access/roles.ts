import { roleOn, startRefusal, type WorkflowRole } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { ApprovalRecord, Store, Versioned, WorkflowRecord } from "@wf/shared/store";

/*
 * Visibility (docs/api.md, Who may do what): a workflow is seen by its owner and the users it is
 * shared with (roleOn); executions, approvals and artifacts belong to the workflow's owner and
 * are seen by whoever sees their workflow. Anything invisible is a 404, never a 403.
 */
export type Role = WorkflowRole;
export { roleOn };

export async function visibleWorkflow(
  store: Store,
  id: string,
  userId: string,
): Promise<{ workflow: Versioned<WorkflowRecord>; role: Role }> {
  const workflow = await store.workflows.get(id);
  const role = workflow && roleOn(workflow.value, userId);
  if (!workflow || !role) throw new WfError("NOT_FOUND", `workflow ${id} not found`);
  return { workflow, role };
}

/** The caller's role on a record owned through a workflow (an execution, an approval), or null. */
export async function roleOnOwned(
  store: Store,
  owned: { ownerId: string; workflowId: string },
  userId: string,
): Promise<Role | null> {
  if (owned.ownerId === userId) return "owner";
  const workflow = await store.workflows.get(owned.workflowId);
  // A workflow that changed hands no longer lends its visibility to the old owner's records.
  if (!workflow || workflow.value.ownerId !== owned.ownerId) return null;
  return roleOn(workflow.value, userId);
}

/** `atLeast`: a revision of the execution the caller saw; the one read is never older. */
export async function visibleExecution(
  store: Store,
  id: string,
  userId: string,
  atLeast = 0,
): Promise<{ execution: Versioned<ExecutionSnapshot>; role: Role }> {
  const execution = await store.executions.get(id, atLeast);
  const role = execution && (await roleOnOwned(store, execution.value, userId));
  if (!execution || !role) throw new WfError("NOT_FOUND", `execution ${id} not found`);
  return { execution, role };
}

export async function visibleApproval(
  store: Store,
  id: string,
  userId: string,
): Promise<{ approval: Versioned<ApprovalRecord>; role: Role }> {
  const approval = await store.approvals.get(id);
  const role = approval && (await roleOnOwned(store, approval.value, userId));
  if (!approval || !role) throw new WfError("NOT_FOUND", `approval ${id} not found`);
  return { approval, role };
}

/**
 * The workflow `userId` may start, as every start decides it (startRefusal): 404 when it does
 * not see it, 403 when it only views it. The caller's account is active: its authentication, in
 * this request, refused it otherwise.
 */
export async function startableWorkflow(store: Store, id: string, userId: string): Promise<Versioned<WorkflowRecord>> {
  const workflow = await store.workflows.get(id);
  const refusal = startRefusal({ id: userId, status: "active" }, id, workflow?.value ?? null);
  if (refusal) throw refusal;
  return workflow!;
}

/** Cancelling, deciding, editing and debugging change things: a viewer may not. */
export function requireWriter(role: Role, what: string): void {
  if (role === "viewer")
    throw new WfError(
      "FORBIDDEN",
      `forbidden: ${what} needs the owner or editor role on the workflow; you are a viewer`,
    );
}
