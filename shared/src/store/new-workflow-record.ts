import { newId } from "../execution/ids";
import type { WorkflowRecord } from "./records";

/** A workflow's first stored version: version 1, shared with nobody yet. */
export function newWorkflowRecord(
  input: { ownerId: string; yaml: string; definition: { name: string }; id?: string },
  now: number = Date.now(),
): WorkflowRecord {
  return {
    id: input.id ?? newId(now),
    name: input.definition.name,
    ownerId: input.ownerId,
    yaml: input.yaml,
    definition: input.definition,
    version: 1,
    sharedWith: {},
    createdAt: now,
    updatedAt: now,
  };
}
