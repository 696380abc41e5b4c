import type { Msg } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsServerHandle } from "@wf/testing";
import { newId, type ExecutionSnapshot } from "@wf/shared/execution";
import { newWorkflowRecord } from "@wf/shared/store";
import { startParkingExecutor, type ServiceProcess } from "../support/processes";
import {
  definitionOf,
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import { sideEffects, slowRecordedStep, type SideEffects } from "../support/side-effects";

/**
 * An executor killed by SIGKILL at the first durable act of a step that parks after a Python step: a sub-workflow's
 * child id (its write carries the Python step's result) and its start; a wait's timer (armed after the Python step's
 * result is written, before the park's write) (docs/architecture.md, "Durability by effect"). Killed there, an API
 * execution completes on the next executor: the Python step ran once, and so did what parked.
 */
let server: NatsServerHandle;

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

const startExecutorProcess = (ns: string) => startParkingExecutor(server.url, ns);

/** A Python step that tells the sink under `key` that it ran, printing `output`. */
const recorded = (fx: SideEffects, name: string, key: string, output: string) =>
  slowRecordedStep(fx, name, key, output, 0);

/**
 * Runs workflow `name` (`yaml`) from the API on an executor killed by SIGKILL as soon as `killsAt` finds what it
 * waits for, in one of the execution's record writes or a message on the subjects `watched`, as they land; then lets a
 * second executor finish it. Returns the record's writes before the kill and the ended record.
 */
async function killedAt(
  c: InProcessRuntime,
  name: string,
  yaml: string,
  watched: string[],
  killsAt: (written: ExecutionSnapshot | null, m: Msg) => boolean,
): Promise<{ written: ExecutionSnapshot[]; ended: ExecutionSnapshot }> {
  let first: ServiceProcess | null = await startExecutorProcess(c.ns);
  const executor = first;
  const written: ExecutionSnapshot[] = [];
  let killed = false;
  const watch = (subject: string, mine: (m: Msg) => ExecutionSnapshot | null | undefined) =>
    c.platform.nc.subscribe(subject, {
      callback: (_err: unknown, m: Msg) => {
        if (killed || m.data.length === 0) return;
        const snap = mine(m);
        if (snap === undefined) return;
        if (snap) written.push(snap);
        if (!killsAt(snap, m)) return;
        // At once, in this callback: the executor is not given the time to make its next write.
        killed = true;
        void executor.kill();
      },
    });
  watch(`$KV.${c.ns}_executions.>`, (m) => {
    const snap = m.json<ExecutionSnapshot>();
    return snap.workflowName === name ? snap : undefined;
  });
  for (const subject of watched) watch(subject, () => null);
  await c.platform.nc.flush();
  try {
    const id = await run(c.platform, yaml, { triggerSource: "open_api" });
    await waitFor(() => killed, { what: "the point to kill at" });
    await first.kill();
    first = null;
    const second = await startExecutorProcess(c.ns);
    try {
      return { written, ended: await waitForStatus(c.platform, id, undefined, 30_000) };
    } finally {
      await second.kill();
    }
  } finally {
    await first?.kill();
  }
}

/** What runs before the sub-workflow: its steps, how many times its Python step runs, the last run's path. */
const beforeCall = {
  "a Python step": { steps: (fx: SideEffects) => recorded(fx, "effect", "effects", "1"), runs: 1, last: "effect" },
  // The last item's result is left to what follows the foreach: the child's id's write.
  "a foreach of Python steps": {
    steps: (fx: SideEffects) =>
      "  - name: each\n    type: foreach\n    items: [1, 2]\n    steps:\n" +
      recorded(fx, "effect", "effects", "1").replace(/^/gm, "    "),
    runs: 2,
    last: "each[1].effect",
  },
} as const;

describe("executor killed around a sub-workflow's start, after a step that acted outside", () => {
  it.each(
    (["a Python step", "a foreach of Python steps"] as const).flatMap((shape) =>
      (["its child's id", "its child's start"] as const).map((at) => [shape, at] as const),
    ),
  )(
    "after %s, killed at %s: each Python run ran once, one child ran once, the execution completes",
    async (shape, at) => {
      const before = beforeCall[shape];
      const c = await startRuntime(
        testConfig(server, { WF_NAMESPACE: `crashcall${before.runs}${at.length}${Date.now() % 100000}` }),
        {
          executor: false,
          approvals: false,
        },
      );
      try {
        const fx = await sideEffects();
        const childYaml = `name: child\nsteps:\n${recorded(fx, "work", "children", "2")}\n`;
        const child = newWorkflowRecord({
          id: `wf-${newId()}`,
          ownerId: "owner1",
          yaml: childYaml,
          definition: definitionOf(childYaml),
        });
        await c.platform.store.workflows.create(child);
        const { written, ended } = await killedAt(
          c,
          "effect-then-call",
          `
name: effect-then-call
steps:
${before.steps(fx)}
  - { name: call, type: workflow, workflow: ${child.id} }
  - { name: last, type: transform, output: "{{ steps.call.output }}" }
`,
          [`${c.ns}.cmd.start.*.*`],
          (snap, m) =>
            at === "its child's id"
              ? Boolean(snap?.steps.call?.childExecutionId)
              : // The child's: the one start command with a parent.
                snap === null && Boolean(m.json<{ parent?: unknown }>().parent),
        );
        // The write that named the child carried the last Python run's result: no write of its own before it, the
        // writes before being the Python runs' starts.
        const named = written.findIndex((s) => s.steps.call?.childExecutionId);
        expect(named).toBe(before.runs);
        expect(written[named - 1]!.steps[before.last]?.status).toBe("RUNNING");
        expect(written[named]!.steps[before.last]?.status).toBe("COMPLETED");
        const childId = written[named]!.steps.call!.childExecutionId!;
        expect(ended.status).toBe("COMPLETED");
        expect(ended.output).toBe(2);
        expect(ended.steps.call?.childExecutionId).toBe(childId);
        expect((await c.platform.store.executions.get(childId))?.value.status).toBe("COMPLETED");
        expect(fx.lines("effects")).toHaveLength(before.runs);
        expect(fx.lines("children")).toHaveLength(1);
      } finally {
        await c.stop();
      }
    },
  );
});

describe("executor killed at a wait's timer, after a Python step", () => {
  it("finds the Python step's result written: the step ran once, the wait begun again is waited in full", async () => {
    // The scheduler fires the timers; the executors are processes of their own.
    const c = await startRuntime(testConfig(server, { WF_NAMESPACE: `crashtimer${Date.now() % 100000}` }), {
      executor: false,
      approvals: false,
    });
    try {
      const fx = await sideEffects();
      const { written, ended } = await killedAt(
        c,
        "effect-then-wait",
        `
name: effect-then-wait
steps:
${recorded(fx, "effect", "effects", "1")}
  - { name: nap, type: wait, seconds: 3 }
`,
        [`${c.ns}.timer.>`, `${c.ns}.timersched.>`],
        (snap) => snap === null,
      );
      // Had the park's write carried the result, the kill would find the step in flight after it ended: an API
      // execution INTERRUPTED, any other running the step again.
      expect(written.at(-1)?.steps).toEqual({ effect: expect.objectContaining({ status: "COMPLETED" }) });
      expect(ended.status).toBe("COMPLETED");
      expect(fx.lines("effects")).toHaveLength(1);
      const nap = ended.steps.nap!;
      expect(nap.completedAt! - nap.startedAt!).toBeGreaterThanOrEqual(3_000);
    } finally {
      await c.stop();
    }
  });
});
