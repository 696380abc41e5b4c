import { WfError } from "../errors";
import type { UserRecord, WorkflowRecord } from "../store/records";
import { invitedEmail } from "./invitations";
import type { UserStatus } from "./plans";

export type WorkflowRole = "owner" | "editor" | "viewer";

/**
 * A user's role on a workflow: its owner, or what the workflow is shared with it as; null when it does not see the
 * workflow.
 */
export function roleOn(workflow: WorkflowRecord, userId: string): WorkflowRole | null {
  if (workflow.ownerId === userId) return "owner";
  if (invitedEmail(userId) !== null) return null;
  return Object.hasOwn(workflow.sharedWith, userId) ? workflow.sharedWith[userId]! : null;
}

/** Who would start an execution, and the status of its account. */
export interface Starter {
  id: string;
  /**
   * null: the starter is no account, only an owner's name (`wf run --owner local`, the
   * operators' tool), and only its role decides.
   */
  status: UserStatus | null;
}

/** The starter behind an owner id, from its user record (null: no such account). */
export function starterOf(id: string, account: Pick<UserRecord, "status"> | null): Starter {
  return { id, status: account?.status ?? null };
}

/**
 * Why `starter` may not start workflow `workflowId` (the stored record, or null), or null when it
 * may: the v1 start's rule, which every start on a user's behalf follows (docs/api.md#who-may-do-what).
 * In the order the v1 start meets them: an inactive account starts nothing (403); a workflow the
 * starter cannot see is not found (404, never a 403); a viewer may not start (403).
 */
export function startRefusal(starter: Starter, workflowId: string, workflow: WorkflowRecord | null): WfError | null {
  if (starter.status !== null && starter.status !== "active") {
    return new WfError(
      "ACCOUNT_INACTIVE",
      `forbidden: starting workflow ${workflowId} needs an active account, and user ${starter.id}'s is ${starter.status}`,
    );
  }
  const role = workflow && roleOn(workflow, starter.id);
  if (!role) return new WfError("NOT_FOUND", `workflow ${workflowId} not found`);
  if (role === "viewer") {
    return new WfError(
      "FORBIDDEN",
      `forbidden: starting workflow ${workflowId} needs the owner or editor role on it, and user ${starter.id} is a viewer`,
    );
  }
  return null;
}
