import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkStart, firstSnapshot, newId, type ExecutionSnapshot } from "@wf/shared/execution";
import { streamNames } from "@wf/shared/nats";
import type { NatsServerHandle } from "@wf/testing";
import {
  pendingStart,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  type InProcessRuntime,
} from "../support/runtime";

/**
 * A replica ahead of the leader: nats-server 2.9 was seen, in the chaos test, to keep answering
 * direct gets of an execution with a write its cut-off leader took and the cluster never
 * committed: held by an executor that died with it, or parked (held by nobody). The executor
 * that took the start command next wrote at that version, lost at the leader, and did the same
 * at every delivery: the start stayed PENDING. Here the store's `get` answers such a record;
 * `getForWrite` and the writes are the real store's.
 */
describe("a start whose record a replica answers as a write the store never took", () => {
  let server: NatsServerHandle;
  let rt: InProcessRuntime;

  beforeAll(async () => {
    server = await startNatsServer();
    rt = await startRuntime(testConfig(server));
  });
  afterAll(async () => {
    await rt?.stop();
    await server?.stop();
  });

  it.each([
    ["held under the start command (a takeover)", "own"],
    ["held under another command (a wait)", "other"],
    ["parked, held by nobody", "nobody"],
  ] as const)("runs from the leader's version when the phantom is %s", async (_label, whose) => {
    const { cmd, executionId, publish } = pendingStart(rt.platform, `phantom-${whose}`, 41, "open_api");
    const checked = checkStart(cmd.workflow.definition, cmd.inputs, cmd.workflow.ownerId);
    if (!checked.ok) throw new Error(checked.error);
    const pending = firstSnapshot(cmd, checked, "PENDING", null);
    const executions = rt.platform.store.executions;
    const committed = await executions.create(pending);

    const jsm = await rt.platform.js.jetstreamManager();
    const nextSeq = (await jsm.streams.info(streamNames(rt.ns).cmd)).state.last_seq + 1;
    const phantom: ExecutionSnapshot = {
      ...pending,
      status: "RUNNING",
      startedAt: Date.now(),
      holder:
        whose === "nobody"
          ? null
          : { actor: `cut-off-${newId()}`, seq: whose === "own" ? nextSeq : nextSeq + 1_000, since: Date.now() },
    };
    const get = executions.get.bind(executions);
    executions.get = (id, atLeast) =>
      id === executionId
        ? Promise.resolve({ value: structuredClone(phantom), version: committed + 2 })
        : get(id, atLeast);
    try {
      expect(await publish()).toBe(nextSeq);
      const done = await waitFor(
        async () => {
          const v = await executions.getForWrite(executionId);
          return v?.value.status === "COMPLETED" ? v.value : undefined;
        },
        { timeoutMs: 20_000, what: `execution ${executionId} to complete` },
      );
      expect({ output: done.output, holder: done.holder }).toEqual({ output: 41, holder: null });
    } finally {
      executions.get = get;
    }
  });
});
