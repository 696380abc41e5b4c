import {
  claimPause,
  releaseClaim,
  type ClaimOptions,
  type ClaimResult,
  type DebugCommandRequest,
} from "../execution/debug-claim";
import {
  changeBreakpoints,
  type BreakpointsChange,
  type BreakpointsChangeResult,
} from "../execution/debug-breakpoints";
import type { DebugClaim } from "../execution/debug";
import type { DebugBreakpointsCommand, DebugCommand } from "../messages/index";
import { subjects } from "../nats/subjects";
import type { Store } from "../store/port";
import type { CommandPublisher } from "./commands";

/** The message that carries a claimed command to the executor. */
export function debugCommandOf(executionId: string, claim: DebugClaim): DebugCommand {
  return { executionId, command: claim.command, body: claim.body, by: claim.by, at: claim.at, claimId: claim.id };
}

/**
 * Claims the current pause for a debugger command (claimPause) and, when it wins, publishes the
 * command for the executor. A publish that fails gives the claim up again, so the pause is free
 * for the next try, and throws.
 */
export async function sendDebugCommand(
  js: CommandPublisher,
  store: Store,
  ns: string,
  executionId: string,
  pauseId: string | undefined,
  req: DebugCommandRequest,
  opts?: ClaimOptions,
): Promise<ClaimResult> {
  const claimed = await claimPause(store, executionId, pauseId, req, opts);
  if (!claimed.ok) return claimed;
  try {
    await js.publish(subjects(ns).execDebug(executionId), JSON.stringify(debugCommandOf(executionId, claimed.claim)), {
      msgID: `debug:${claimed.claim.id}`,
    });
  } catch (err) {
    await releaseClaim(store, executionId, claimed.claim.id).catch(() => false);
    throw err;
  }
  return claimed;
}

/**
 * Replaces a debug run's breakpoints while it runs (or waits at a pause), if they are still at the revision the change
 * was made on (changeBreakpoints), and tells the executor, which announces the change. The change is in effect once
 * written: a publish that fails (thrown) leaves its announcement to the run's next write.
 */
export async function sendBreakpoints(
  js: CommandPublisher,
  store: Store,
  ns: string,
  executionId: string,
  change: BreakpointsChange,
): Promise<BreakpointsChangeResult> {
  const changed = await changeBreakpoints(store, executionId, change);
  if (!changed.ok) return changed;
  const cmd: DebugBreakpointsCommand = {
    executionId,
    command: "breakpoints",
    revision: changed.revision,
    by: change.by,
    at: Date.now(),
  };
  // One message per revision: the record's compare-and-set gave this change its revision alone.
  await js.publish(subjects(ns).execDebug(executionId), JSON.stringify(cmd), {
    msgID: `breakpoints:${executionId}:${changed.revision}`,
  });
  return changed;
}
