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

/**
 * The earlier versions a record keeps: the history travels in the record, which must stay far
 * below NATS's max_payload (1 MB by default) beside the current text and its parse.
 */
export const WORKFLOW_HISTORY = { versions: 50, bytes: 256 * 1024 } as const;

/**
 * A stored workflow's next version: its new text and parse, the version up by one, its sharing
 * kept, and the current text kept in `history` (so an earlier version can still be read), the
 * oldest versions dropped past WORKFLOW_HISTORY.
 */
export function nextWorkflowVersion(
  current: WorkflowRecord,
  input: { yaml: string; workflow: { name: string } },
  now: number = Date.now(),
): WorkflowRecord {
  const history = [
    ...(current.history ?? []),
    { version: current.version, yaml: current.yaml, updatedAt: current.updatedAt },
  ];
  let bytes = history.reduce((n, h) => n + Buffer.byteLength(h.yaml), 0);
  while (history.length > WORKFLOW_HISTORY.versions || (history.length > 1 && bytes > WORKFLOW_HISTORY.bytes))
    bytes -= Buffer.byteLength(history.shift()!.yaml);
  return {
    ...current,
    name: input.workflow.name,
    yaml: input.yaml,
    definition: input.workflow,
    version: current.version + 1,
    updatedAt: now,
    history,
  };
}
