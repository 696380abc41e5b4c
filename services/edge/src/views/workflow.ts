import { z } from "zod";
import type { WorkflowDetail, WorkflowSummary } from "@wf/shared/api";
import type { WorkflowRecord } from "@wf/shared/store";

/** The parts of a stored definition the views show; the definition was validated at import. */
const Definition = z.looseObject({
  steps: z.array(z.record(z.string(), z.unknown())).default([]),
  variables: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export function workflowSummary(w: WorkflowRecord): WorkflowSummary {
  return { id: w.id, name: w.name, ownerId: w.ownerId, workflow: Definition.parse(w.definition).steps };
}

export function workflowDetail(w: WorkflowRecord): WorkflowDetail {
  const definition = Definition.parse(w.definition);
  return {
    id: w.id,
    name: w.name,
    ownerId: w.ownerId,
    workflow: definition.steps,
    variables: definition.variables,
    yaml: w.yaml,
    version: w.version,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}
