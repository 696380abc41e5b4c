import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalDecision } from "@wf/shared/api";
import { inOwnerLane, laneOf, newId } from "@wf/shared/execution";
import type { ApprovalExpireCommand, ResumeCommand } from "@wf/shared/messages";
import { streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { ApprovalRecord } from "@wf/shared/store";
import { startApprovals } from "@wf/approvals";
import type { NatsServerHandle } from "@wf/testing";
import { runBounded } from "../bench/bounded";
import { startNatsServer, startRuntime, testConfig, waitFor } from "../support/runtime";
import { FLOOD, quietOwner } from "../support/lane-owners";

/**
 * Owner A's approvals expiring together (a foreach of gates timing out at once): each expiry is cheap (a write of
 * its record and a resume), so the backlog must be many times the approvals' bound of 64 in hand to be one at all.
 * WF_TEST_APPROVAL_BACKLOG measures with more.
 */
const BACKLOG = Number(process.env.WF_TEST_APPROVAL_BACKLOG ?? 2_000);
/** The approvals' bound (services/approvals): what one round in hand, all lanes together, holds at most. */
const IN_HAND = 64;
const TIMEOUT_MS = 60_000 + BACKLOG * 20;
const QUIET = quietOwner();

/** Commands are handled twice under WF_REDELIVER_ONCE: the wake-ups must come once all the same. */
for (const env of [{}, { WF_REDELIVER_ONCE: "1" }] as Record<string, string>[]) {
  const twice = "WF_REDELIVER_ONCE" in env;
  describe(`approval lanes${twice ? " (every command handled twice)" : ""}`, () => {
    let server: NatsServerHandle;

    beforeAll(async () => {
      server = await startNatsServer();
    });
    afterAll(async () => {
      await server?.stop();
    });

    // Judged by order, not by the clock: the resumes the approvals actor publishes land on the command stream in the
    // order it carried the commands out. Taken in the order they came, B's decision would come after nearly all of
    // A's expiries; in turn, beside the few in hand.
    it(
      "carries out another owner's decision beside one owner's backlog of expiries, not after it",
      async () => {
        const config = testConfig(server, env);
        // No executor: the resumes stay on the command stream, in the order they were published.
        const rt = await startRuntime(config, { executor: false, scheduler: false, approvals: false });
        const p = rt.platform;
        try {
          const flood: ApprovalRecord[] = [];
          await runBounded(BACKLOG, 64, async () => flood.push(await approval(p, FLOOD, "PENDING")));
          const quiet = await approval(p, QUIET, "APPROVED");
          expect(laneOf(quiet.executionId)).not.toBe(laneOf(flood[0]!.executionId));
          // A's expiries as their timers fire them, then B's approve as the edge publishes it (its decision recorded):
          // the backlog is queued when B's comes, as when A's timers fire faster than the approvals drain them.
          await runBounded(flood.length, 256, (i) => expire(p, flood[i]!));
          const last = await decide(p, quiet);
          const approvals = await startApprovals(p);
          try {
            const started = Date.now();
            const cmd = streamNames(rt.ns).cmd;
            await waitFor(
              async () => ((await p.jsm.streams.info(cmd)).state.last_seq === last + BACKLOG + 1 ? true : undefined),
              { timeoutMs: TIMEOUT_MS - 30_000, what: "a resume for each approval" },
            );
            const b = await p.jsm.streams.getMessage(cmd, {
              last_by_subj: subjects(rt.ns).execResume(quiet.executionId),
            });
            expect(b?.json<ResumeCommand>()).toMatchObject({ executionId: quiet.executionId, reason: "approval" });
            const all = await p.jsm.streams.getMessage(cmd, { seq: last + BACKLOG + 1 });
            // Only the resumes came after the last command: those before B's are A's.
            const before = b!.seq - last - 1;
            const ms = (t: Date) => t.getTime() - started;
            console.log(
              `${before} of owner A's ${BACKLOG} expiries were carried out before owner B's approve ` +
                `(B's after ${ms(b!.time)} ms, A's all after ${ms(all!.time)} ms)`,
            );
            expect(before, "A's expiries carried out first").toBeLessThan(Math.min(IN_HAND * 2, BACKLOG / 2));
          } finally {
            await approvals.stop();
          }
        } finally {
          await rt.stop();
        }
      },
      TIMEOUT_MS,
    );

    // A command a version before the approval lanes stored (or a timer it armed fires) on the subject it used.
    it("carries out an approval's command stored on the earlier subject before an upgrade", async () => {
      const rt = await startRuntime(testConfig(server, env), { executor: false, scheduler: false });
      const p = rt.platform;
      try {
        const a = await approval(p, FLOOD, "PENDING");
        const earlier = subjects(rt.ns).approvalBefore("expire", a.id);
        expect(earlier).toBe(`${rt.ns}.cmd.approval.expire.${a.id}`);
        const cmd: ApprovalExpireCommand = { approvalId: a.id, executionId: a.executionId };
        await p.js.publish(earlier, JSON.stringify(cmd));
        const stream = streamNames(rt.ns).cmd;
        const resume = await waitFor(
          async () =>
            (await p.jsm.streams.getMessage(stream, { last_by_subj: subjects(rt.ns).execResume(a.executionId) })) ??
            undefined,
          { what: "the expiry's resume" },
        );
        expect(resume.json<ResumeCommand>()).toMatchObject({ executionId: a.executionId, reason: "approval" });
        expect((await p.store.approvals.get(a.id))?.value.status).toBe("EXPIRED");
        // Acknowledged (under WF_REDELIVER_ONCE, on its second delivery).
        await waitFor(
          async () => ((await p.jsm.streams.getMessage(stream, { last_by_subj: earlier })) === null ? true : undefined),
          { what: "the earlier subject's expiry to be acknowledged" },
        );
      } finally {
        await rt.stop();
      }
    });
  });
}

/** A pending approval of `ownerId`'s (expired already), or one its reviewer approved a moment ago. */
async function approval(p: Platform, ownerId: string, status: "PENDING" | "APPROVED"): Promise<ApprovalRecord> {
  const now = Date.now();
  const record = ApprovalRecord.parse({
    id: newId(),
    executionId: inOwnerLane(newId(), ownerId),
    workflowId: `wf-${ownerId}`,
    ownerId,
    stepName: "gate",
    status,
    approvalMessage: "ok?",
    timeout: 60,
    createdAt: now - 60_000,
    expiresAt: status === "PENDING" ? now - 1 : now + 3_600_000,
    reviewableGroups: [],
    ...(status === "APPROVED" ? { decidedAt: now, decidedBy: "reviewer" } : {}),
  });
  await p.store.approvals.create(record);
  return record;
}

/** The expiry an approval's timeout timer publishes. */
async function expire(p: Platform, a: ApprovalRecord): Promise<void> {
  const cmd: ApprovalExpireCommand = { approvalId: a.id, executionId: a.executionId };
  await p.js.publish(subjects(p.config.WF_NAMESPACE).approval("expire", a.id, a.executionId), JSON.stringify(cmd), {
    msgID: `expire:${a.id}`,
  });
}

/** The approve command the edge publishes for the decision `a` records; returns its stream sequence. */
async function decide(p: Platform, a: ApprovalRecord): Promise<number> {
  const cmd: ApprovalDecision = {
    approvalId: a.id,
    executionId: a.executionId,
    verb: "approve",
    decidedBy: a.decidedBy!,
    decidedAt: a.decidedAt!,
    comment: null,
    editedItems: null,
  };
  const subject = subjects(p.config.WF_NAMESPACE).approval("approve", a.id, a.executionId);
  return (await p.js.publish(subject, JSON.stringify(cmd))).seq;
}
