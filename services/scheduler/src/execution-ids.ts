import { derivedId } from "@wf/shared/execution";

/*
 * Executions the scheduler starts have ids derived from what started them, so whoever starts the
 * same one again (a second replica, a redelivered command, a timer armed twice) collides on the
 * id, and the start command on its Nats-Msg-Id, instead of running it twice.
 */

export const scheduleExecutionId = (workflowId: string, tickAt: number): string => derivedId(tickAt, `schedule:${workflowId}:${tickAt}`);

export const chainExecutionId = (chainKey: string, sourceExecutionId: string, dueAt: number): string =>
  derivedId(dueAt, `chain:${chainKey}:${sourceExecutionId}`);
