import type { JetStreamPublisher } from "@wf/shared/store";

/** A floor start command: the execution, and its workflow's steps. */
export interface FloorStart {
  id: string;
  ownerId: string;
  workflowId: string;
  createdAt: number;
  steps: { name: string; code: string }[];
  input: unknown;
}

export const FLOOR_BUCKETS = (ns: string) => ({
  executions: `${ns}_executions`,
  index: `${ns}_executions_idx`,
  rates: `${ns}_ratelimits`,
});
export const FLOOR_CONSUMER = "floor";

/** The execution's list entry, keyed as the service keys its own (`o.<owner>.<workflow>.<createdAt>.<id>`). */
export function floorListKey(start: FloorStart): string {
  return `o.${start.ownerId}.${start.workflowId}.${start.createdAt}.${start.id}`;
}

/** KV bucket B is stream KV_B with subjects $KV.B.<key>; a compare-and-set is an expected last subject sequence. */
export function floorKvPut(
  publisher: JetStreamPublisher,
  bucket: string,
  key: string,
  value: string,
  expectRevision?: number,
): Promise<number> {
  const expect = expectRevision === undefined ? undefined : { expect: { lastSubjectSequence: expectRevision } };
  return publisher.publish(`$KV.${bucket}.${key}`, value, expect).then((ack) => ack.seq);
}
