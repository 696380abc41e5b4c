import { CasConflictError } from "@wf/shared/errors";
import {
  idleDue,
  parseDefinition,
  standingClaim,
  TERMINAL_STATUSES,
  type DebugCommandName,
} from "@wf/shared/execution";
import type { DebugMessage, ResumeCommand } from "@wf/shared/messages";
import { cancelExecution } from "@wf/shared/client";
import { subjects, type Handled } from "@wf/shared/nats";
import { Committer } from "../run/committer";
import { applyClaimedCommand } from "../run/debug/commands";
import { idleError } from "../run/debug/idle";
import { ExecutionRun } from "../run/execution-run";
import { LostOwnershipError } from "../run/signals";
import { debugIdleTimer, notifyParent, runEffects, type EffectDeps } from "./live-effects";

/**
 * How long a claimed command waits here for the run's holder to finish parking, re-reading it every PARKING_POLL_MS.
 */
const PARKING_WAIT_MS = 250;
const PARKING_POLL_MS = 2;

/** The commands that end a pause and wake the run. */
const RESUMING: ReadonlySet<DebugCommandName> = new Set(["continue", "step", "step_into", "skip", "retry"]);

/**
 * `<ns>.cmd.exec.debug.<execId>`, by compare-and-set on the snapshot, as a guest (a lost write is read
 * again and decided again): a claimed command (claimPause) is carried out on the paused run's snapshot
 * only while it holds the claim (a run still held is being parked, and is waited for); `breakpoints`
 * announces breakpoints replaced on the record (changeBreakpoints) if nobody did yet; `idle`, from a pause's idle
 * timer, cancels the run if that pause has waited idle that long with no command claiming it
 * (docs/debugger.md#exactly-one-command-per-pause). The record is read where writes are checked: a replica may answer
 * it without the claim the command won, which would then be dropped.
 */
export async function handleDebugMessage(deps: EffectDeps, msg: DebugMessage, busy: () => Handled): Promise<Handled> {
  const heldSince = Date.now();
  for (;;) {
    const v = await deps.store.executions.getForWrite(msg.executionId);
    if (!v || !v.value.debug || TERMINAL_STATUSES.has(v.value.status)) return;
    const snap = v.value;
    const d = v.value.debug;
    const c = new Committer(snap, v.version, deps.store, deps.events, deps.ns, deps.resultLimits, "guest");
    let then: (() => Promise<void>) | null = null;
    if (msg.command === "breakpoints") {
      // Announced already (by an earlier message, or by the run's holder at a write); or held: a holder numbers the
      // events it writes itself (one written beside it would share an id with its next), and announces the change
      // at its next write (Committer.announceBreakpoints).
      if (d.breakpointsAnnounced >= msg.revision || snap.holder !== null) return;
      c.touch();
    } else if (msg.command === "idle") {
      const due = d.pause?.id === msg.pauseId ? idleDue(d) : null;
      // Answered meanwhile; or an edit moved the due time on, and armed the timer that will come then.
      if (due === null || Date.now() < due) return;
      // A command that won the pause first is carried out, not cancelled under its sender, who was told it won: this
      // comes back to find the pause ended by it, or its claim given up or abandoned.
      if (snap.holder !== null || standingClaim(snap, Date.now())) return busy();
      await cancel(deps, c, idleError(d));
      then = () => notifyParent(deps.js, deps.ns, snap);
    } else {
      if (d.claimed?.id !== msg.claimId) {
        // Carried out by an earlier delivery, whose wake may not have gone out (the same wake is deduplicated).
        if (d.appliedClaim === msg.claimId && RESUMING.has(msg.command) && snap.holder === null)
          await wake(deps, snap.id, msg.claimId);
        return;
      }
      if (snap.holder !== null && msg.command === "abort") {
        // An abort is a cancel: the holder stops the run now, where another branch (a code step running on) would
        // otherwise keep it from parking, and the abort waiting, for as long as that takes.
        await cancelExecution(deps.js, deps.ns, snap.id, abortError(msg.by));
        return;
      }
      if (snap.holder !== null) {
        // Still being parked, most often: a command sent as soon as its pause was announced
        // comes before the holder's last write, and is worth a few ms here rather than a redelivery.
        if (Date.now() - heldSince >= PARKING_WAIT_MS) return busy();
        await new Promise((resolve) => setTimeout(resolve, PARKING_POLL_MS));
        continue;
      }
      const applied = applyClaimedCommand(c, msg.claimId, Date.now());
      if (applied === null) return;
      if (applied === "abort") {
        await cancel(deps, c, abortError(msg.by));
        then = () => notifyParent(deps.js, deps.ns, snap);
      } else if (applied === "resume") {
        then = () => wake(deps, snap.id, msg.claimId);
      } else {
        const pause = d.pause!;
        then = () => deps.timers.schedule(debugIdleTimer(deps.ns, snap.id, pause.id, idleDue(d)!));
      }
    }
    try {
      await c.settle();
    } catch (err) {
      if (err instanceof CasConflictError || err instanceof LostOwnershipError) continue;
      throw err;
    }
    await then?.();
    return;
  }
}

const abortError = (by: string): string => `execution aborted in the debugger by ${by}`;

/** Ends the parked run CANCELLED (as a cancel of a parked execution does), saying why. */
async function cancel(deps: EffectDeps, c: Committer, error: string): Promise<void> {
  const snap = c.snap;
  snap.cancelRequested = true;
  const wf = parseDefinition(snap.definition, snap.ownerId);
  if (wf.success) {
    await new ExecutionRun(c, wf.data, runEffects(deps, snap)).finishCancelled(error);
    return;
  }
  snap.status = "CANCELLED";
  snap.error = error;
  snap.completedAt = Date.now();
  if (snap.debug) snap.debug.pause = null;
  c.emit("exec_cancelled", undefined, { status: snap.status, error });
}

/** Wakes the run after its pause ended: one resume per claim (deduplicated by its id). */
async function wake(deps: EffectDeps, executionId: string, claimId: string): Promise<void> {
  const cmd: ResumeCommand = { executionId, reason: "debug" };
  await deps.js.publish(subjects(deps.ns).execResume(executionId), JSON.stringify(cmd), {
    msgID: `debug-wake:${claimId}`,
  });
}
