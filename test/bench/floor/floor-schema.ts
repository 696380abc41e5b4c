import { streamNames } from "@wf/shared/nats";

/** A floor start command: the execution, and its workflow's steps. */
export interface FloorStart {
  id: string;
  ownerId: string;
  workflowId: string;
  createdAt: number;
  steps: { name: string; code: string }[];
  input: unknown;
}

/** The service's own stream names (so the bench's completion watcher reads the floor's events as it reads the service's). */
export const FLOOR_STREAMS = (ns: string) => ({ cmd: streamNames(ns).cmd, evt: streamNames(ns).evt });
export const FLOOR_BUCKETS = (ns: string) => ({ executions: `${ns}_executions`, index: `${ns}_executions_idx`, rates: `${ns}_ratelimits` });
export const FLOOR_CONSUMER = "floor";
