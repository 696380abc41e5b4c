import { derivedId, inOwnerLane } from "@wf/shared/execution";

/*
 * Executions the scheduler starts have ids derived from what started them, so whoever starts the
 * same one again (a second replica, a redelivered command, a timer armed twice) collides on the
 * id, and the start command on its Nats-Msg-Id, instead of running it twice. Each in its
 * owner's start lane, as every start is.
 */

export const scheduleExecutionId = (w: { id: string; ownerId: string }, tickAt: number): string =>
  inOwnerLane(derivedId(tickAt, `schedule:${w.id}:${tickAt}`), w.ownerId);

export const chainExecutionId = (chainKey: string, sourceExecutionId: string, dueAt: number, ownerId: string): string =>
  inOwnerLane(derivedId(dueAt, `chain:${chainKey}:${sourceExecutionId}`), ownerId);
