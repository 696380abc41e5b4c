import { describe, expect, it } from "vitest";
import { ApprovalView } from "@wf/shared/api";
import { waitFor } from "@wf/testing";
import { account, storeWorkflow, useApi, type Account } from "../api/support";
import { approvalsOf, gatedYaml, statusOf, useHttp, type HttpAnswer } from "./support";

const api = useApi({ runtime: true });
const http = useHttp(api);

type Contender = "approve" | "reject" | "timeout" | "cancel";

/** The approval status each contender leaves when it wins. */
const WINS_AS: Record<Contender, string> = {
  approve: "APPROVED",
  reject: "REJECTED",
  timeout: "EXPIRED",
  cancel: "CANCELLED",
};

const PAIRS: [Contender, Contender][] = [
  ["approve", "reject"],
  ["approve", "timeout"],
  ["approve", "cancel"],
  ["reject", "timeout"],
  ["reject", "cancel"],
  ["timeout", "cancel"],
];

/**
 * Fires one contender. The timeout contender is the approval's own timer, due now: the others
 * are sent at that moment, with the edge's clock held just before the due time so that the edge
 * does not refuse them as expired: the approval record alone has to settle the race.
 */
async function fire(c: Contender, me: Account, executionId: string, approvalId: string): Promise<HttpAnswer | null> {
  switch (c) {
    case "approve":
      return http("POST", `/api/v1/approvals/${approvalId}/approve`, { key: me.key, body: { comment: "race" } });
    case "reject":
      return http("POST", `/api/v1/approvals/${approvalId}/reject`, { key: me.key, body: { comment: "race" } });
    case "cancel":
      return http("POST", `/api/v1/executions/${executionId}/cancel`, { key: me.key });
    case "timeout":
      return null;
  }
}

describe("approve, reject, timeout and cancel racing two at a time: exactly one wins", () => {
  for (const [a, b] of PAIRS) {
    it(`${a} vs ${b}`, async () => {
      const me = await account(api());
      const hasTimeout = a === "timeout" || b === "timeout";
      const wf = await storeWorkflow(api(), me.user.id, gatedYaml(hasTimeout ? 2 : 3600));
      const started = await http("POST", `/api/v1/workflows/${wf.id}/executions`, { key: me.key, body: {} });
      const executionId = (started.body as { executionId: string }).executionId;
      const [approval] = await approvalsOf(http, me.key, executionId);
      const { id, expiresAt } = approval!;

      if (hasTimeout) {
        api().clock.now = expiresAt - 1;
        await waitFor(() => Date.now() >= expiresAt - 5, {
          timeoutMs: 5_000,
          intervalMs: 1,
          what: "the approval's due time",
        });
      }
      let answers: (HttpAnswer | null)[];
      try {
        answers = await Promise.all([fire(a, me, executionId, id), fire(b, me, executionId, id)]);
      } finally {
        api().clock.now = null;
      }

      const terminal = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED", "CANCELLED"]);
      const record = await waitFor(
        async () => {
          const r = ApprovalView.parse((await http("GET", `/api/v1/approvals/${id}`, { key: me.key })).body);
          return r.status === "PENDING" ? undefined : r;
        },
        { what: `approval ${id} settled` },
      );
      const winner = ([a, b] as Contender[]).find((c) => WINS_AS[c] === record.status);
      expect(winner, `approval ended ${record.status}`).toBeDefined();

      // A decision sent over the API got 200 exactly when it won.
      ([a, b] as Contender[]).forEach((c, i) => {
        if (c === "approve" || c === "reject")
          expect(answers[i]!.status === 200, `${c} answered ${answers[i]!.status}`).toBe(c === winner);
      });
      if (a === "approve" && b === "reject")
        expect(answers.map((r) => r!.status).sort()).toEqual([200, winner === "approve" ? 409 : 404].sort());

      // The gated step shows the winning decision; the execution ends by it, unless a cancel
      // (which always stops an execution that has not ended yet) came after the decision.
      const cancelled = (a === "cancel" || b === "cancel") && terminal.status === "CANCELLED";
      const apply = terminal.stepResults.apply!;
      switch (winner) {
        case "approve":
          expect(apply.status).toBe(cancelled ? "CANCELLED" : "COMPLETED");
          expect(terminal.status).toBe(cancelled ? "CANCELLED" : "COMPLETED");
          break;
        case "reject":
          expect(apply.status).toBe("REJECTED");
          if (!cancelled) expect(terminal).toMatchObject({ status: "FAILED", error: `approval ${id} rejected: race` });
          break;
        case "timeout":
          expect(apply.status).toBe("EXPIRED");
          if (!cancelled) expect(terminal).toMatchObject({ status: "FAILED", error: `approval ${id} expired` });
          break;
        case "cancel":
          expect(terminal.status).toBe("CANCELLED");
          expect(apply.status).toBe("CANCELLED");
          break;
      }
      // Nothing moves the approval afterwards.
      const settled = ApprovalView.parse((await http("GET", `/api/v1/approvals/${id}`, { key: me.key })).body);
      expect(settled).toEqual(record);
    });
  }
});
