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

/** A stored workflow's next version: its new text and parse, the version up by one, its sharing kept. */
export function nextWorkflowVersion(current: WorkflowRecord, input: { yaml: string; workflow: { name: string } }, now: number = Date.now()): WorkflowRecord {
  return { ...current, name: input.workflow.name, yaml: input.yaml, definition: input.workflow, version: current.version + 1, updatedAt: now };
}
