import type { JetStreamClient, JsMsg } from "@nats-io/jetstream";
import { ApprovalDecision } from "@wf/shared/api";
import type { Logger } from "@wf/shared/log";
import { ApprovalExpireCommand, type ResumeCommand } from "@wf/shared/messages";
import { subjects } from "@wf/shared/nats";
import { settleApproval, type ApprovalRecord, type Store } from "@wf/shared/store";

export interface ApprovalActorDeps {
  js: JetStreamClient;
  store: Store;
  ns: string;
  log: Logger;
  maxDeliver: number;
  redeliverOnce: boolean;
  clock?: () => number;
}

/**
 * Carries out approval commands. The approval record is the one place a decision is taken: its
 * status leaves PENDING by compare-and-set exactly once, whoever comes first among approve and
 * reject (recorded by the edge before it publishes), the timeout (this actor, when the timer
 * fires) and the execution's cancel (the executor, when it cancels). The winner's execution is
 * then woken up (a resume command); the losers change nothing.
 */
export class ApprovalActor {
  private readonly now: () => number;

  constructor(private readonly d: ApprovalActorDeps) {
    this.now = d.clock ?? Date.now;
  }

  async handle(m: JsMsg): Promise<void> {
    const verb = m.subject.split(".")[3];
    try {
      const body: unknown = JSON.parse(m.string());
      if (verb === "approve" || verb === "reject") await this.onDecided(ApprovalDecision.parse(body));
      else if (verb === "expire") {
        const due = await this.onExpire(ApprovalExpireCommand.parse(body));
        // A timer that fired early (clocks of two hosts differ): come back when it is due.
        if (due > 0) {
          m.nak(due);
          return;
        }
      } else {
        m.term(`unknown approval command ${verb}`);
        return;
      }
      this.done(m);
    } catch (err) {
      if (err instanceof SyntaxError || (err as Error)?.name === "ZodError") {
        this.d.log.error("poison approval command: malformed", { subject: m.subject, err });
        m.term("malformed command");
        return;
      }
      this.d.log.error("approval command failed; will be redelivered", { subject: m.subject, err });
      if (m.info.deliveryCount >= this.d.maxDeliver) m.term("gave up");
      else m.nak(Math.min(30_000, 500 * m.info.deliveryCount));
    }
  }

  /** WF_REDELIVER_ONCE: every command handled twice, to prove the handlers idempotent. */
  private done(m: JsMsg): void {
    if (this.d.redeliverOnce && m.info.deliveryCount === 1) m.nak();
    else m.ack();
  }

  /** The edge recorded the decision: wake the execution if the record says so. */
  private async onDecided(cmd: ApprovalDecision): Promise<void> {
    const current = await this.d.store.approvals.get(cmd.approvalId);
    const expected = cmd.verb === "approve" ? "APPROVED" : "REJECTED";
    if (current?.value.status !== expected) {
      this.d.log.warn("approval command does not match its record; ignored", { approvalId: cmd.approvalId, verb: cmd.verb });
      return;
    }
    await this.resume(current.value);
  }

  /** Returns how long until the approval is due when the timer came early, else 0. */
  private async onExpire(cmd: ApprovalExpireCommand): Promise<number> {
    const settled = await settleApproval(this.d.store, cmd.approvalId, (a) => {
      const left = a.expiresAt - this.now();
      return left > 0 ? left : { ...a, status: "EXPIRED", decidedAt: this.now(), decidedBy: "timeout" };
    });
    if ("declined" in settled) return settled.declined;
    if (settled.won) await this.resume(settled.record);
    return 0;
  }

  private async resume(a: ApprovalRecord): Promise<void> {
    const cmd: ResumeCommand = { executionId: a.executionId, reason: "approval", stepPath: a.stepName };
    await this.d.js.publish(subjects(this.d.ns).execResume(a.executionId), JSON.stringify(cmd), {
      msgID: `approval:${a.id}:${a.status}`,
    });
  }
}
