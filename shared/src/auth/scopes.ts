import { z } from "zod";

/** What an API key may do (docs/api.md, Authentication). */
export const SCOPES = [
  "WORKFLOW_READ",
  "WORKFLOW_EXECUTE",
  "EXECUTION_READ",
  "EXECUTION_CANCEL",
  "APPROVAL_RESPOND",
  "ARTIFACT_READ",
  "WEBHOOK_TRIGGER",
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;
