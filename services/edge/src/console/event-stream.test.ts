import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { newId, type ExecutionSnapshot } from "@wf/shared/execution";
import { ensureStreams, ONE_REPLICA, subjects } from "@wf/shared/nats";
import { useNatsConnection } from "@wf/testing/nats-connection";
import { nothingMoreComes } from "./event-stream";

const nats = useNatsConnection();
const NS = "evs";

/** A completed execution whose record was written and whose events are published by `publish` (not yet). */
function ended(): { execution: ExecutionSnapshot; publish: (js: JetStreamClient) => Promise<void> } {
  const id = newId();
  const execution = { id, status: "COMPLETED", completedAt: Date.now() } as ExecutionSnapshot;
  const publish = async (js: JetStreamClient): Promise<void> => {
    for (const type of ["exec_started", "step_completed", "exec_completed"]) {
      const event = { type, executionId: id, workflowId: "wf", ownerId: "o", at: Date.now(), id: newId(), data: {} };
      await js.publish(subjects(NS).event("o", "wf", id, type), JSON.stringify(event));
    }
  };
  return { execution, publish };
}

describe("whether an ended execution's event stream has anything more to send", () => {
  it("an execution whose events all reach the stream while it is asked is followed, not answered 204", async () => {
    const js = jetstream(nats.nc);
    await ensureStreams(await js.jetstreamManager(), NS, { eventsMaxAgeMs: 3_600_000, placement: ONE_REPLICA });
    const { execution, publish } = ended();
    // Its events are published, in order, right after the first read the check makes of the stream: the race of a
    // quick run, whose one write ends it and whose events follow.
    let reads = 0;
    const racing = {
      jetstreamManager: async () => {
        const jsm = await js.jetstreamManager(false);
        const getMessage = jsm.streams.getMessage.bind(jsm.streams);
        jsm.streams.getMessage = async (...args: Parameters<typeof getMessage>) => {
          const m = await getMessage(...args);
          if (++reads === 1) await publish(js);
          return m;
        };
        return jsm;
      },
    } as unknown as JetStreamClient;
    expect(await nothingMoreComes({ js: racing, ns: NS }, execution, 0)).toBe(false);
    // Once they are all there, and the client has had them: nothing more comes.
    expect(await nothingMoreComes({ js, ns: NS }, execution, 0)).toBe(false);
    const lastSeq = (await (await js.jetstreamManager()).streams.info(`${NS}_EVT`)).state.last_seq;
    expect(await nothingMoreComes({ js, ns: NS }, execution, lastSeq)).toBe(true);
  });
});
