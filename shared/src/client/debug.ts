import {
  claimPause,
  releaseClaim,
  type ClaimOptions,
  type ClaimResult,
  type DebugCommandRequest,
} from "../execution/debug-claim";
import type { BreakpointInput, DebugClaim } from "../execution/debug";
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

/** Replaces a debug run's breakpoints while it runs (or waits at a pause). */
export async function sendBreakpoints(
  js: CommandPublisher,
  ns: string,
  executionId: string,
  breakpoints: BreakpointInput[],
  by: string,
): Promise<void> {
  const cmd: DebugBreakpointsCommand = { executionId, command: "breakpoints", breakpoints, by, at: Date.now() };
  await js.publish(subjects(ns).execDebug(executionId), JSON.stringify(cmd), {
    msgID: `breakpoints:${executionId}:${cmd.at}`,
  });
}
