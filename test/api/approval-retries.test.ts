import { afterEach, describe, expect, it } from "vitest";
import type { JetStreamClient } from "@nats-io/jetstream";
import { TimeoutError } from "@nats-io/nats-core";
import { subjects } from "@wf/shared/nats";
import { waitForStatus } from "../support/runtime";
import { account, call, storeWorkflow, useApi } from "./support";

const api = useApi({ runtime: true });

const GATED = `
name: gated
steps:
  - { name: gate, type: transform, output: done, manual_approval: { message: go?, timeout: 600 } }
`;

/**
 * A decision whose publish landed but whose ack was lost (a NATS hiccup, a timeout): the client
 * is told it failed, or the request is retried; either way the approval must take effect once
 * the client retries, never be swallowed as a duplicate of the command that landed.
 */
describe("an approval whose publish acknowledgement is lost", () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  /** Publishes to `subject` reach the stream, but their caller is told they failed (the first `times` ones). */
  function loseAcks(js: JetStreamClient, subject: string, times: number): { lost: () => number } {
    const original = js.publish.bind(js);
    let lost = 0;
    js.publish = async (subj, ...rest) => {
      const ack = await original(subj, ...rest);
      if (subj === subject && lost < times) {
        lost++;
        // What the client sees when the ack does not come back in time.
        throw new TimeoutError();
      }
      return ack;
    };
    restore = () => {
      js.publish = original;
    };
    return { lost: () => lost };
  }

  async function awaitingApproval() {
    const me = await account(api());
    const wf = await storeWorkflow(api(), me.user.id, GATED);
    const started = await call(api(), "POST", `/api/v1/workflows/${wf.id}/executions`, { key: me.key, body: {} });
    expect(started.statusCode).toBe(202);
    const executionId = started.json<{ executionId: string }>().executionId;
    await waitForStatus(api().platform, executionId, ["AWAITING_APPROVAL"]);
    const [approval] = await api().platform.store.approvals.listByExecution(executionId);
    return { me, executionId, approvalId: approval!.id };
  }

  it("one lost ack: the request publishes again, finds its command landed, and the execution goes on", async () => {
    const { me, executionId, approvalId } = await awaitingApproval();
    const injected = loseAcks(api().platform.js, subjects(api().ns).approval("approve", approvalId, executionId), 1);

    const r = await call(api(), "POST", `/api/v1/approvals/${approvalId}/approve`, { key: me.key });

    expect(r.statusCode).toBe(200);
    expect(injected.lost()).toBe(1);
    const s = await waitForStatus(api().platform, executionId);
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toBe("done");
  });

  it("every ack lost: 503 and the approval still PENDING (the command goes before the record); the client's retry then takes effect", async () => {
    const { me, executionId, approvalId } = await awaitingApproval();
    loseAcks(
      api().platform.js,
      subjects(api().ns).approval("approve", approvalId, executionId),
      Number.POSITIVE_INFINITY,
    );
    const failed = await call(api(), "POST", `/api/v1/approvals/${approvalId}/approve`, { key: me.key });
    expect(failed.statusCode).toBe(503);
    expect((await api().platform.store.approvals.get(approvalId))!.value.status).toBe("PENDING");
    restore?.();

    const retried = await call(api(), "POST", `/api/v1/approvals/${approvalId}/approve`, { key: me.key });

    expect(retried.statusCode).toBe(200);
    const s = await waitForStatus(api().platform, executionId);
    expect(s.status).toBe("COMPLETED");
    expect((await api().platform.store.approvals.get(approvalId))!.value.status).toBe("APPROVED");
  });
});
