import type { JetStreamClient, JsMsg } from "@nats-io/jetstream";
import { ApprovalDecision } from "@wf/shared/api";
import type { Logger } from "@wf/shared/log";
import { ApprovalExpireCommand, type FailCommand, type ResumeCommand } from "@wf/shared/messages";
import { command, subjects, type Handled } from "@wf/shared/nats";
import { settleApproval, type ApprovalRecord, type Store } from "@wf/shared/store";

/**
 * How long a decision's command waits for the edge to record it (its write takes milliseconds; a retried one seconds).
 */
const RECORD_WAIT_MS = 30_000;

export interface ApprovalActorDeps {
  js: JetStreamClient;
  store: Store;
  ns: string;
  log: Logger;
  clock?: () => number;
}

/**
 * Carries out approval commands. The approval record is the one place a decision is taken: its
 * status leaves PENDING by compare-and-set exactly once, whoever comes first among approve and
 * reject (recorded by the edge after it publishes their command), the timeout (this actor, when the timer
 * fires) and the execution's cancel (the executor, when it cancels). The winner's execution is
 * then woken up (a resume command); the losers change nothing.
 */
export class ApprovalActor {
  private readonly now: () => number;

  constructor(private readonly deps: ApprovalActorDeps) {
    this.now = deps.clock ?? Date.now;
  }

  /** The approval commands, by the verb of their subject (`<ns>.cmd.approval.<verb>.<approvalId>`). */
  commands() {
    const decided = command(ApprovalDecision, (cmd, m) => this.onDecided(cmd, m));
    return {
      approve: decided,
      reject: decided,
      // A timer that fired early (clocks of two hosts differ): come back when it is due.
      expire: command(ApprovalExpireCommand, async (cmd): Promise<Handled> => {
        const due = await this.onExpire(cmd);
        return due > 0 ? { retryInMs: due } : undefined;
      }),
    };
  }

  /**
   * The give-up hook: a command about an execution's approval that cannot be carried out leaves
   * the execution parked for good unless it ends; the executor, its one writer, fails it.
   */
  async failExecution(executionId: string, reason: string): Promise<void> {
    const cmd: FailCommand = { executionId, reason: `an approval command for it was given up: ${reason}` };
    await this.deps.js.publish(subjects(this.deps.ns).execFail(executionId), JSON.stringify(cmd), {
      msgID: `fail:${executionId}`,
    });
  }

  /**
   * A decision's command, which the edge publishes before it records the decision: the
   * execution is woken once the record shows this decision. While the record is still PENDING
   * the command comes back (the edge's write may be on its way), for RECORD_WAIT_MS; a decision
   * never recorded (its request failed) or beaten by another is then ignored.
   */
  private async onDecided(cmd: ApprovalDecision, m: JsMsg): Promise<Handled> {
    const current = (await this.deps.store.approvals.get(cmd.approvalId))?.value;
    if (current?.status === "PENDING" && this.now() - m.info.timestampNanos / 1e6 < RECORD_WAIT_MS) {
      return { retryInMs: Math.min(250 * 2 ** (m.info.deliveryCount - 1), 8_000) };
    }
    const expected = cmd.verb === "approve" ? "APPROVED" : "REJECTED";
    if (current?.status !== expected || current.decidedAt !== cmd.decidedAt || current.decidedBy !== cmd.decidedBy) {
      this.deps.log.info("an approval's command whose decision is not the recorded one; ignored", {
        approvalId: cmd.approvalId,
        verb: cmd.verb,
      });
      return;
    }
    await this.resume(current);
  }

  /** Returns how long until the approval is due when the timer came early, else 0. */
  private async onExpire(cmd: ApprovalExpireCommand): Promise<number> {
    const settled = await settleApproval(this.deps.store, cmd.approvalId, (a) => {
      const left = a.expiresAt - this.now();
      return left > 0 ? left : { ...a, status: "EXPIRED", decidedAt: this.now(), decidedBy: "timeout" };
    });
    if ("declined" in settled) return settled.declined;
    if (settled.won) await this.resume(settled.record);
    return 0;
  }

  private async resume(a: ApprovalRecord): Promise<void> {
    const cmd: ResumeCommand = { executionId: a.executionId, reason: "approval", stepPath: a.stepName };
    await this.deps.js.publish(subjects(this.deps.ns).execResume(a.executionId), JSON.stringify(cmd), {
      // Per decision: after a decision undone (its request failed), the next one wakes the execution again.
      msgID: `approval:${a.id}:${a.status}:${a.decidedAt ?? 0}`,
    });
  }
}
