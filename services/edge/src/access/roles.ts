import { WfError } from "@wf/shared/errors";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { Store, Versioned, WorkflowRecord } from "@wf/shared/store";

export type Role = "owner" | "editor" | "viewer";

/**
 * Visibility (docs/api.md, Who may do what): a workflow is seen by its owner and the users it is
 * shared with; executions, approvals and artifacts belong to the workflow's owner and are seen
 * by whoever sees their workflow. Anything invisible is a 404, never a 403.
 */
export function roleOn(workflow: WorkflowRecord, userId: string): Role | null {
  if (workflow.ownerId === userId) return "owner";
  return Object.hasOwn(workflow.sharedWith, userId) ? workflow.sharedWith[userId]! : null;
}

export async function visibleWorkflow(store: Store, id: string, userId: string): Promise<{ workflow: Versioned<WorkflowRecord>; role: Role }> {
  const workflow = await store.workflows.get(id);
  const role = workflow && roleOn(workflow.value, userId);
  if (!workflow || !role) throw new WfError("NOT_FOUND", `workflow ${id} not found`);
  return { workflow, role };
}

/** The caller's role on a record owned through a workflow (an execution, an approval), or null. */
export async function roleOnOwned(store: Store, owned: { ownerId: string; workflowId: string }, userId: string): Promise<Role | null> {
  if (owned.ownerId === userId) return "owner";
  const workflow = await store.workflows.get(owned.workflowId);
  // A workflow that changed hands no longer lends its visibility to the old owner's records.
  if (!workflow || workflow.value.ownerId !== owned.ownerId) return null;
  return roleOn(workflow.value, userId);
}

export async function visibleExecution(store: Store, id: string, userId: string): Promise<{ execution: Versioned<ExecutionSnapshot>; role: Role }> {
  const execution = await store.executions.get(id);
  const role = execution && (await roleOnOwned(store, execution.value, userId));
  if (!execution || !role) throw new WfError("NOT_FOUND", `execution ${id} not found`);
  return { execution, role };
}

/** Starting, cancelling and deciding change things: a viewer may not. */
export function requireWriter(role: Role, what: string): void {
  if (role === "viewer") throw new WfError("FORBIDDEN", `forbidden: ${what} needs the owner or editor role on the workflow; you are a viewer`);
}
