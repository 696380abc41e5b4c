/** A floor start command: the execution, and its workflow's steps. */
export interface FloorStart {
  id: string;
  ownerId: string;
  workflowId: string;
  createdAt: number;
  steps: { name: string; code: string }[];
  input: unknown;
}

export const FLOOR_BUCKETS = (ns: string) => ({ executions: `${ns}_executions`, index: `${ns}_executions_idx`, rates: `${ns}_ratelimits` });
export const FLOOR_CONSUMER = "floor";

/** The execution's list entry, keyed as the service keys its own (`o.<owner>.<workflow>.<createdAt>.<id>`). */
export function floorListKey(start: FloorStart): string {
  return `o.${start.ownerId}.${start.workflowId}.${start.createdAt}.${start.id}`;
}
