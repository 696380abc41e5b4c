import { describe, expect, it } from "vitest";
import { laneOf, ownerLanes, START_LANES } from "@wf/shared/execution";
import { LANE_MARGIN, subjects } from "@wf/shared/nats";
import { account, SIMPLE_YAML, startV1, storeWorkflow, useApi } from "./support";

/** The edge puts a start in its owner's less busy lane, as the executors report them (docs/architecture.md). */
const api = useApi();

describe("a start's lane", () => {
  it("is the owner's first while no lane is reported busy, and its second once the first is", async () => {
    const owner = await account(api());
    const w = await storeWorkflow(api(), owner.user.id, SIMPLE_YAML);
    const [first, second] = ownerLanes(owner.user.id);
    expect(laneOf(await startV1(api(), owner, w))).toBe(first);

    const { nc } = api().platform;
    const pending = new Array<number>(START_LANES).fill(0);
    pending[first] = LANE_MARGIN + 20;
    // The edge follows the reports on this connection: a message sent after the report and received back here comes
    // after the edge's callback has taken the report.
    const sentinel = nc.subscribe(`test.sentinel.${owner.user.id}`, { max: 1 });
    nc.publish(subjects(api().ns).laneBacklog, JSON.stringify({ executor: "test", pending }));
    nc.publish(`test.sentinel.${owner.user.id}`, "");
    for await (const _ of sentinel) break;

    expect(laneOf(await startV1(api(), owner, w))).toBe(second);
  });
});
