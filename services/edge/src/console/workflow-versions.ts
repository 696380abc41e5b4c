import type { WorkflowRecord } from "@wf/shared/store";

export interface KeptVersion {
  version: number;
  yaml: string;
  updatedAt: number;
}

/** Every version kept, oldest first, the current one last. */
export function versionsOf(w: WorkflowRecord): KeptVersion[] {
  return [...(w.history ?? []), { version: w.version, yaml: w.yaml, updatedAt: w.updatedAt }];
}
