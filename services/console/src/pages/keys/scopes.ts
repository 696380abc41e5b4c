import type { Scope } from "../../api/types";

/**
 * What each scope allows (docs/api.md, Authentication), in the order the form lists them. Keyed
 * by the API's Scope type, so a scope added to the service fails the build until it is described.
 */
export const SCOPE_HELP: Record<Scope, string> = {
  WORKFLOW_READ: "List and read your workflows.",
  WORKFLOW_EXECUTE: "Start executions of workflows.",
  EXECUTION_READ: "List executions and read their status and results.",
  EXECUTION_CANCEL: "Cancel executions.",
  APPROVAL_RESPOND: "List and decide approvals, and use one-click approval links.",
  ARTIFACT_READ: "List executions' artifacts and get their download links.",
  WEBHOOK_TRIGGER: "Trigger the webhooks bound to this key.",
};

export const SCOPES = Object.keys(SCOPE_HELP) as Scope[];
