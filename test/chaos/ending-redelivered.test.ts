import { Kvm } from "@nats-io/kv";
import { headers } from "@nats-io/nats-core";
import { describe, expect, it } from "vitest";
import { ORPHAN_OF_HEADER, streamNames, subjects, toToken } from "@wf/shared/nats";
import type { ExecutionEvent } from "@wf/shared/execution";
import { run, startRuntime, testConfig, waitFor, waitForStatus } from "../support/runtime";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();

describe("an executor that died after an execution's final write", () => {
  it("leaves the rest of the ending to the next delivery of its command: the final events, the list entry", async () => {
    const c = await startRuntime(testConfig(nats.server), { scheduler: false, approvals: false });
    try {
      const { store, js, jsm, nc } = c.platform;
      const id = await run(c.platform, "name: ends\nsteps:\n  - { name: only, type: transform, output: 1 }\n");
      const ended = await waitForStatus(c.platform, id);
      expect(ended.status).toBe("COMPLETED");
      // What a holder killed right after its final record write leaves: an outbox never
      // published, and a list entry still carrying the status before.
      const last: ExecutionEvent = {
        type: "exec_completed",
        executionId: id,
        workflowId: ended.workflowId,
        ownerId: ended.ownerId,
        at: Date.now(),
        id: `${id}.${ended.eventSeq + 1}`,
        data: { status: "COMPLETED" },
      };
      const current = (await store.executions.get(id))!;
      await store.executions.update({ ...ended, eventSeq: ended.eventSeq + 1, outbox: [last] }, current.version);
      const index = await new Kvm(nc).open(`${c.ns}_executions_idx`);
      // The namespace's one execution has one list entry.
      const keys: string[] = [];
      for await (const key of await index.keys("o.>")) keys.push(key);
      expect(keys).toHaveLength(1);
      await index.put(keys[0]!, "RUNNING");
      const completedList = () =>
        store.executions.list({ ownerId: ended.ownerId, status: "COMPLETED", page: 1, size: 10 });
      expect((await completedList()).total).toBe(0);

      // Its command delivered again: here a copy rescued from a consumer that lost track of it.
      const h = headers();
      h.set(ORPHAN_OF_HEADER, "1");
      await js.publish(subjects(c.ns).execResume(id), JSON.stringify({ executionId: id, reason: "handover" }), {
        headers: h,
      });

      const subject = subjects(c.ns).event(toToken(ended.ownerId), toToken(ended.workflowId), id, "exec_completed");
      const published = await waitFor(
        async () => {
          const m = await jsm.streams.getMessage(streamNames(c.ns).evt, { last_by_subj: subject }).catch(() => null);
          const event = m?.json<ExecutionEvent>();
          return event?.id === last.id ? event : undefined;
        },
        { what: "the final outbox to be published" },
      );
      expect(published).toEqual(last);
      const listed = await waitFor(async () => ((await completedList()).total === 1 ? completedList() : undefined), {
        what: "the list entry to carry the final status",
      });
      expect(listed.items.map((e) => e.id)).toEqual([id]);
    } finally {
      await c.stop();
    }
  });
});
