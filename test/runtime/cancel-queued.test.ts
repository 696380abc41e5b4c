import { afterAll, beforeAll, expect, it } from "vitest";
import { startExecution } from "@wf/shared/client";
import { inOwnerLane, newId } from "@wf/shared/execution";
import type { NatsServerHandle } from "@wf/testing";
import {
  definitionOf,
  startNatsServer,
  startRuntime,
  testConfig,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";

/**
 * A cancel answered 200 is recorded on the execution before the answer (the edge flags `cancelRequested`), so the
 * execution must end CANCELLED whatever its executor finds when it takes the start: here a rerun queued while no
 * executor runs, of a source that is not there, whose cancel command has not been handled.
 */
let server: NatsServerHandle;
let config: ReturnType<typeof testConfig>;
let edge: InProcessRuntime;
let executor: InProcessRuntime | undefined;

beforeAll(async () => {
  server = await startNatsServer();
  // One namespace for both: testConfig makes a new one each time.
  config = testConfig(server);
  edge = await startRuntime(config, { executor: false, scheduler: false, approvals: false });
});
afterAll(async () => {
  await executor?.stop();
  await edge?.stop();
  await server?.stop();
});

it("a queued rerun that cannot be made, flagged cancelled, ends CANCELLED, not FAILED", async () => {
  const p = edge.platform;
  const definition = definitionOf(`
  name: rerun-of-nothing
  steps:
    - { name: a, type: transform, output: 1 }
    - { name: b, type: transform, output: 2 }
  `);
  const executionId = inOwnerLane(newId(), "owner1");
  await startExecution(
    p.js,
    edge.ns,
    {
      executionId,
      workflow: { id: "wf-rerun-of-nothing", name: definition.name, ownerId: "owner1", version: null, definition },
      inputs: {},
      triggerSource: "console",
      rerun: { of: "01nosuchexecution000", fromStep: "b" },
    },
    { store: p.store },
  );
  // As the edge's cancel does before it answers; its command is not sent, so the start alone decides.
  const queued = (await p.store.executions.get(executionId))!;
  expect(queued.value.status).toBe("PENDING");
  await p.store.executions.update({ ...queued.value, cancelRequested: true }, queued.version);

  executor = await startRuntime(config, { scheduler: false, approvals: false });
  const ended = await waitForStatus(p, executionId);
  expect([ended.status, ended.error]).toEqual(["CANCELLED", expect.anything()]);
  expect(ended.steps.a).toBeUndefined();
});
