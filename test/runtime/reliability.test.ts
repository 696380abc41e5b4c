import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JetStreamClient } from "@nats-io/jetstream";
import { TimeoutError } from "@nats-io/nats-core";
import { cancelExecution, startExecution } from "@wf/shared/client";
import { laneOf, newId } from "@wf/shared/execution";
import { consumerNames, subjects, type CommandDropped } from "@wf/shared/nats";
import { newWorkflowRecord } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { sideEffects } from "../support/side-effects";
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

/**
 * Regression tests of commands that used to be lost: a child's cancel whose publish failed (an
 * unhandled rejection that ended the executor), and commands dropped as "malformed" when what
 * failed to parse was a stored record, leaving their execution parked for good.
 */
describe("commands that fail", () => {
  let server: NatsServerHandle;
  let rt: InProcessRuntime;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  /** Undoes the test's stub of a platform method (a publish, a store read or write). */
  let restoreStub: (() => void) | undefined;

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    server = await startNatsServer();
    rt = await startRuntime(testConfig(server));
  });
  afterEach(() => {
    restoreStub?.();
    restoreStub = undefined;
  });
  afterAll(async () => {
    process.off("unhandledRejection", onUnhandled);
    await rt?.stop();
    await server?.stop();
  });

  /** Makes the runtime's publishes to `subject` fail, the first `times` times. */
  function failPublishes(js: JetStreamClient, subject: string, times: number): { failed: () => number } {
    const original = js.publish.bind(js);
    let failed = 0;
    js.publish = (subj, ...rest) => {
      if (subj === subject && failed < times) {
        failed++;
        return Promise.reject(new Error("injected: publish failed"));
      }
      return original(subj, ...rest);
    };
    restoreStub = () => {
      js.publish = original;
    };
    return { failed: () => failed };
  }

  const parked = (name: string) => `
  name: ${name}
  steps:
    - { name: hold, type: wait, seconds: 600 }
  `;

  it("a parent's cancel reaches its child although the first publishes of it fail, and the executor lives on", async () => {
    const child = newWorkflowRecord({
      id: `wf-${newId()}`,
      ownerId: "owner1",
      yaml: parked("child-held"),
      definition: definitionOf(parked("child-held")),
    });
    await rt.platform.store.workflows.create(child);
    const parentId = await run(
      rt.platform,
      `
  name: parent-cancelled
  steps:
    - { name: call, type: workflow, workflow: ${child.id} }
  `,
    );
    const childId = await waitFor(
      async () => {
        const parent = (await rt.platform.store.executions.get(parentId))?.value;
        const id = parent?.steps.call?.childExecutionId;
        const c = id ? (await rt.platform.store.executions.get(id))?.value : undefined;
        return c?.steps.hold?.status === "RUNNING" ? c.id : undefined;
      },
      { timeoutMs: 10_000, what: "the child to wait" },
    );
    const injected = failPublishes(rt.platform.js, subjects(rt.ns).execCancel(childId), 2);

    await cancelExecution(rt.platform.js, rt.ns, parentId);

    expect((await waitForStatus(rt.platform, parentId)).status).toBe("CANCELLED");
    expect((await waitForStatus(rt.platform, childId)).status).toBe("CANCELLED");
    expect(injected.failed()).toBe(2);
    expect(unhandled).toEqual([]);
    // Still serving.
    const after = await run(
      rt.platform,
      `
  name: after-cancel
  steps: [ { name: a, type: transform, output: 1 } ]
  `,
    );
    expect((await waitForStatus(rt.platform, after)).status).toBe("COMPLETED");
  });

  it("an API run whose networked code step finds the store timing out goes on to COMPLETED, rather than ending INTERRUPTED", async () => {
    const fx = await sideEffects();
    const ownerId = `owner-${newId()}`;
    const users = rt.platform.store.users;
    const get = users.get.bind(users);
    let ownerReads = 0;
    // The owner's egress list is read as the step starts: its first two reads time out (an election).
    users.get = (id) => (id === ownerId && ++ownerReads <= 2 ? Promise.reject(new TimeoutError()) : get(id));
    restoreStub = () => {
      users.get = get;
    };
    const id = await run(
      rt.platform,
      `
  name: reads-through-an-election
  variables:
    fx: { type: string, required: true }
  steps:
    - name: post
      type: code
      language: bash
      network: { allow: ["${fx.allow}"] }
      code: |
        curl -sS -o /dev/null -X POST --data run "$WF_VAR_fx/post" && echo posted
  `,
      { inputs: { fx: fx.url }, triggerSource: "open_api", ownerId },
    );
    const done = await waitForStatus(rt.platform, id);
    expect({ status: done.status, error: done.error, output: done.steps.post?.output }).toEqual({
      status: "COMPLETED",
      error: null,
      output: "posted",
    });
    expect(ownerReads).toBe(3);
    expect(fx.lines("post")).toHaveLength(1);
  });

  it("a cancel written while the run writes its park ends the execution CANCELLED then, not at its wake", async () => {
    const executions = rt.platform.store.executions;
    const update = executions.update.bind(executions);
    let raced = false;
    // The park's write (held by nobody, the wait's wake due) loses to a cancel's write made just before it. The step
    // before the wait writes the record first (it acts outside): a wait that parks has no write of its own before the
    // park's, which would otherwise create the record.
    executions.update = async (value, version) => {
      if (
        !raced &&
        value.workflowName === "cancel-while-parking" &&
        value.holder === null &&
        value.steps.pause?.waitUntil
      ) {
        raced = true;
        const current = (await executions.get(value.id))!;
        await update({ ...current.value, cancelRequested: true }, current.version);
      }
      return update(value, version);
    };
    restoreStub = () => {
      executions.update = update;
    };
    const id = await run(
      rt.platform,
      `
  name: cancel-while-parking
  steps:
    - { name: first, type: code, language: bash, code: "echo 1" }
    - { name: pause, type: wait, seconds: 600 }
    - { name: never, type: transform, output: 1 }
  `,
    );
    const done = await waitForStatus(rt.platform, id);
    expect(raced).toBe(true);
    expect({ status: done.status, pause: done.steps.pause?.status, never: done.steps.never }).toEqual({
      status: "CANCELLED",
      pause: "CANCELLED",
      never: undefined,
    });
  });

  it("a start whose command could not be published is withdrawn, through transient failures of the withdrawal too", async () => {
    const ownerId = `owner-${newId()}`;
    const wf = newWorkflowRecord({
      id: `wf-${newId()}`,
      ownerId,
      yaml: parked("never-started"),
      definition: definitionOf(parked("never-started")),
    });
    const executions = rt.platform.store.executions;
    const withdraw = executions.withdraw.bind(executions);
    let withdrawals = 0;
    executions.withdraw = (pending) => (++withdrawals <= 2 ? Promise.reject(new TimeoutError()) : withdraw(pending));
    try {
      const js = rt.platform.js;
      const original = js.publish.bind(js);
      js.publish = (subj, ...rest) =>
        subj.includes(".cmd.start.") ? Promise.reject(new TimeoutError()) : original(subj, ...rest);
      restoreStub = () => {
        js.publish = original;
      };
      await expect(
        startExecution(
          js,
          rt.ns,
          {
            workflow: { id: wf.id, name: "never-started", ownerId, version: 1, definition: wf.definition },
            triggerSource: "open_api",
          },
          { store: rt.platform.store },
        ),
      ).rejects.toThrow(TimeoutError);
      // Listed PENDING at first (its list entry landed); gone once the third withdrawal goes through.
      await waitFor(
        async () => (await executions.list({ ownerId, page: 1, size: 10 })).total === 0 && withdrawals === 3,
        {
          timeoutMs: 10_000,
          what: "the failed start to be withdrawn",
        },
      );
    } finally {
      executions.withdraw = withdraw;
    }
  });

  it("a start whose command is stored but whose list entry could not be put is answered, runs and is listed", async () => {
    const ownerId = `owner-${newId()}`;
    const definition = definitionOf(`
  name: listed-late
  steps: [ { name: a, type: transform, output: 7 } ]
  `);
    const executions = rt.platform.store.executions;
    const announce = executions.announce.bind(executions);
    let announces = 0;
    // The index stream electing a leader: the first put finds no responders.
    executions.announce = (pending) =>
      ++announces === 1 ? Promise.reject(new Error("no responders: index put")) : announce(pending);
    restoreStub = () => {
      executions.announce = announce;
    };
    const id = await startExecution(
      rt.platform.js,
      rt.ns,
      {
        workflow: { id: `wf-${newId()}`, name: "listed-late", ownerId, version: 1, definition },
        triggerSource: "open_api",
      },
      { store: rt.platform.store },
    );
    const done = await waitForStatus(rt.platform, id);
    expect({ status: done.status, output: done.output }).toEqual({ status: "COMPLETED", output: 7 });
    const listed = await waitFor(
      async () => {
        const page = await executions.list({ ownerId, page: 1, size: 10 });
        return page.items[0]?.status === "COMPLETED" ? page : undefined;
      },
      { timeoutMs: 10_000, what: "the execution listed COMPLETED" },
    );
    expect({ total: listed.total, id: listed.items[0]?.id, announces }).toEqual({ total: 1, id, announces: 2 });
  });

  it("an execution whose stored workflow no longer parses ends FAILED, saying so, when it is resumed", async () => {
    const id = await run(rt.platform, parked("upgraded"));
    // Parked: no executor holds it any more, so the edit below is not written over by its holder.
    await waitFor(
      async () => {
        const v = (await rt.platform.store.executions.get(id))?.value;
        return v?.steps.hold?.status === "RUNNING" && v.holder === null ? true : undefined;
      },
      { timeoutMs: 10_000, what: "the wait to park" },
    );
    const v = (await rt.platform.store.executions.get(id))!;
    // As another version might have stored it.
    await rt.platform.store.executions.update(
      { ...v.value, definition: { name: "upgraded", steps: [{ name: "hold", type: "sleep-v2" }] } },
      v.version,
    );

    await rt.platform.js.publish(
      subjects(rt.ns).execResume(id),
      JSON.stringify({ executionId: id, reason: "timer", stepPath: "hold" }),
    );

    const s = await waitForStatus(rt.platform, id);
    expect(s.status).toBe("FAILED");
    expect(s.error).toContain("stored workflow definition no longer parses");
  });

  it("an execution whose approval record no longer parses ends FAILED when its approval command is given up", async () => {
    const id = await run(
      rt.platform,
      `
  name: approval-corrupt
  steps:
    - { name: gate, type: transform, output: 1, manual_approval: { message: ok?, timeout: 600 } }
  `,
    );
    await waitForStatus(rt.platform, id, ["AWAITING_APPROVAL"]);
    const [approval] = await rt.platform.store.approvals.listByExecution(id);
    const stored = (await rt.platform.store.approvals.get(approval!.id))!;
    await rt.platform.store.approvals.update(
      { ...stored.value, reviewableGroups: "left by another version" as never },
      stored.version,
    );

    // As the approval's timeout timer fires it.
    await rt.platform.js.publish(
      subjects(rt.ns).approval("expire", approval!.id, id),
      JSON.stringify({ approvalId: approval!.id, executionId: id }),
    );

    const s = await waitForStatus(rt.platform, id);
    expect(s.status).toBe("FAILED");
    expect(s.error).toContain(`record approvals/${approval!.id} cannot be read`);
    expect(s.error).toContain("reviewableGroups");
  });

  it("a command whose body does not validate is dropped with an audit event, and the execution it names ends FAILED", async () => {
    const id = await run(rt.platform, parked("malformed-resume"));
    await waitFor(
      async () =>
        (await rt.platform.store.executions.get(id))?.value.steps.hold?.status === "RUNNING" ? true : undefined,
      {
        timeoutMs: 10_000,
        what: "the wait to park",
      },
    );
    const audit: CommandDropped[] = [];
    const sub = rt.platform.nc.subscribe(subjects(rt.ns).audit("command_dropped"), {
      callback: (_err, msg) => {
        audit.push(msg.json<CommandDropped>());
      },
    });
    try {
      await rt.platform.js.publish(
        subjects(rt.ns).execResume(id),
        JSON.stringify({ executionId: id, reason: "because" }),
      );

      const s = await waitForStatus(rt.platform, id);
      expect(s.status).toBe("FAILED");
      expect(s.error).toContain("a command for it was dropped: malformed resume command (reason:");
      const event = await waitFor(async () => audit.find((e) => e.executionId === id), {
        timeoutMs: 5_000,
        what: "the audit event",
      });
      expect(event).toMatchObject({
        reason: "command_dropped",
        consumer: consumerNames().executorResumeLane(laneOf(id)),
        subject: subjects(rt.ns).execResume(id),
      });
      expect(event.problem).toContain("malformed resume command");
    } finally {
      sub.unsubscribe();
    }
  });
});
