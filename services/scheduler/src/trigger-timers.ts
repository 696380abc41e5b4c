import { ownerLane } from "@wf/shared/execution";
import { subjects, toToken, type TimerSpec } from "@wf/shared/nats";
import type { ChainFireCommand, TickCommand } from "./commands";

/**
 * The timer of a schedule's tick of a workflow of `ownerId`'s: in the owner's lane, and so is the command it fires, so
 * that one owner's ticks due together wait in their lane twice over, not ahead of another owner's.
 */
export function tickTimer(ns: string, ownerId: string, cmd: TickCommand): TimerSpec {
  const { workflowId, tickAt } = cmd;
  const lane = ownerLane(ownerId);
  const subject = subjects(ns).trigger(lane, "tick", toToken(workflowId));
  return {
    kind: "tick",
    id: `${workflowId}.${tickAt}`,
    lane,
    dueAt: tickAt,
    fire: { subject, payload: cmd, msgId: `tick:${workflowId}:${tickAt}` },
  };
}

/** The timer of a chained run's delay, and its command, in the lane of `ownerId`, the owner of the workflow it starts. */
export function chainTimer(ns: string, ownerId: string, cmd: ChainFireCommand): TimerSpec {
  const lane = ownerLane(ownerId);
  return {
    kind: "chain",
    id: `${cmd.chainKey}.${cmd.sourceExecutionId}`,
    lane,
    dueAt: cmd.dueAt,
    fire: {
      subject: subjects(ns).trigger(lane, "chain", toToken(cmd.workflowId)),
      payload: cmd,
      msgId: `chain:${cmd.chainKey}:${cmd.sourceExecutionId}`,
    },
  };
}
