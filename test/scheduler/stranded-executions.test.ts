import { Kvm } from "@nats-io/kv";
import { DebugState, newId, sharedDefinition, type ExecutionSnapshot, type StepState } from "@wf/shared/execution";
import { ResumeCommand } from "@wf/shared/messages";
import { definitionsBucket, StoredDefinitions, streamNames, subjects } from "@wf/shared/nats";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { keyToken } from "@wf/shared/store";
import { describe, expect, it, onTestFinished } from "vitest";
import { startStrandedSweep, STALE_AFTER_MS } from "@wf/scheduler";
import { run, startRuntime, testConfig, uniqueNamespace, waitFor, waitForStatus } from "../support/runtime";
import { approvalOf, awaitingApproval, openExecution, runningStep } from "../support/open-executions";
import { useNatsServer } from "@wf/testing/nats-connection";

/**
 * The stranded-execution sweep's choices, read off the commands it leaves on the CMD stream where no service runs
 * to take them; then a lost approval expiry carried out by the approvals service and the executor. Its hand-ons to an
 * executor process (a takeover, a lost wait's timer) are in test/chaos/crash.test.ts.
 */
const nats = useNatsServer();

const T0 = Date.now() - 3_600_000;

function step(name: string, type: StepState["type"], fields: Partial<StepState> = {}): StepState {
  return runningStep(name, type, T0, fields);
}

function execution(fields: Partial<ExecutionSnapshot>): ExecutionSnapshot {
  return openExecution(T0, fields);
}

/** A debugger's pause `id` at step `slow`, made at `at`, that ends itself after `idleTimeout` seconds without a command. */
function pausedAt(id: string, at: number, idleTimeout: number): DebugState {
  return DebugState.parse({
    breakpoints: [],
    idleTimeout,
    pause: {
      id,
      breakpointId: "b1",
      type: "before_step",
      stepPath: "slow",
      phase: "before",
      pausedAt: at,
      context: { vars: {}, outputs: {} },
    },
  });
}

/** The last command stored on `subject`, if any. */
async function lastOn(p: Platform, subject: string): Promise<unknown> {
  const m = await p.jsm.streams.getMessage(streamNames(p.config.WF_NAMESPACE).cmd, { last_by_subj: subject });
  return m === null ? null : m.json();
}

/** The last resume command stored for execution `id`, if any. */
async function resumeOf(p: Platform, id: string): Promise<ResumeCommand | null> {
  const ns = p.config.WF_NAMESPACE;
  const m = await p.jsm.streams.getMessage(streamNames(ns).cmd, { last_by_subj: subjects(ns).execResume(id) });
  return m === null ? null : ResumeCommand.parse(m.json());
}

describe("the stranded execution sweep", () => {
  it("wakes a parked execution whose wait, or whose sub-workflow's end, is two minutes past, and nothing else", async () => {
    const p = await openPlatform(testConfig(nats.server), "stranded-test");
    onTestFinished(() => p.close());
    const now = Date.now();
    const ended = execution({ status: "COMPLETED", completedAt: now - STALE_AFTER_MS - 1_000 });
    const endedLately = execution({ status: "COMPLETED", completedAt: now - 1_000 });
    const running = execution({});
    const cases = {
      waitOverdue: execution({
        steps: { pause: step("pause", "wait", { waitUntil: now - STALE_AFTER_MS - 1 }) },
      }),
      waitLately: execution({ steps: { pause: step("pause", "wait", { waitUntil: now - 1_000 }) } }),
      backoffOverdue: execution({ steps: { flaky: step("flaky", "code", { retryAt: T0 }) } }),
      // A debugger's pause stops the clock: the deadline it passed is not overdue, while its idle timeout is a day.
      pausedPastDeadline: execution({
        steps: { slow: step("slow", "code", { deadline: T0 }) },
        debug: pausedAt("p1", T0, 86_400),
      }),
      // A pause idle for a minute since an hour ago.
      pausedIdle: execution({ steps: { slow: step("slow", "code") }, debug: pausedAt("p2", T0, 60) }),
      // Its resume waits in a long queue: on its way.
      waitOverdueQueued: execution({ steps: { pause: step("pause", "wait", { waitUntil: T0 }) } }),
      childEnded: execution({ steps: { sub: step("sub", "sub_workflow", { childExecutionId: ended.id }) } }),
      childEndedLately: execution({
        steps: { sub: step("sub", "sub_workflow", { childExecutionId: endedLately.id }) },
      }),
      childRunning: execution({ steps: { sub: step("sub", "sub_workflow", { childExecutionId: running.id }) } }),
      // Held: its holder's command is its own business (the takeover, tested with an executor).
      heldLately: execution({
        holder: { actor: "a-live-one", seq: 1, since: now },
        steps: { pause: step("pause", "wait", { waitUntil: T0 }) },
      }),
    };
    for (const e of [ended, endedLately, running, ...Object.values(cases)]) await p.store.executions.create(e);
    const queued: ResumeCommand = { executionId: cases.waitOverdueQueued.id, reason: "handover" };
    await p.js.publish(subjects(p.config.WF_NAMESPACE).execResume(queued.executionId), JSON.stringify(queued));

    const sweep = startStrandedSweep(p, p.log);
    onTestFinished(() => sweep.stop());
    expect(await sweep.sweep(now)).toBe(4);
    const resumes = Object.fromEntries(
      await Promise.all(Object.entries(cases).map(async ([name, e]) => [name, await resumeOf(p, e.id)] as const)),
    );
    expect(resumes).toEqual({
      waitOverdue: { executionId: cases.waitOverdue.id, reason: "timer", stepPath: "pause" },
      waitLately: null,
      backoffOverdue: { executionId: cases.backoffOverdue.id, reason: "timer", stepPath: "flaky" },
      waitOverdueQueued: queued,
      pausedPastDeadline: null,
      pausedIdle: null,
      childEnded: { executionId: cases.childEnded.id, reason: "child", stepPath: "sub" },
      childEndedLately: null,
      childRunning: null,
      heldLately: null,
    });
    const ns = p.config.WF_NAMESPACE;
    expect(await lastOn(p, subjects(ns).execDebug(cases.pausedIdle.id))).toEqual({
      executionId: cases.pausedIdle.id,
      command: "idle",
      pauseId: "p2",
    });
    expect(await lastOn(p, subjects(ns).execDebug(cases.pausedPastDeadline.id))).toBeNull();

    // Another pass finds them queued, and sends nothing more.
    expect(await sweep.sweep(now)).toBe(0);
    const cmd = await p.jsm.streams.info(streamNames(p.config.WF_NAMESPACE).cmd);
    expect(cmd.state.messages).toBe(5);
  });

  it("expires an approval two minutes past its expiry, wakes an execution whose approval was decided as long ago, and takes one over from a dead holder", async () => {
    const p = await openPlatform(testConfig(nats.server), "stranded-test");
    onTestFinished(() => p.close());
    const now = Date.now();
    const long = now - STALE_AFTER_MS - 1;
    const cases = {
      expired: awaitingApproval(T0, (e) => approvalOf(e, { expiresAt: long })),
      expiresLater: awaitingApproval(T0, (e) => approvalOf(e, { expiresAt: now - 1_000 })),
      decided: awaitingApproval(T0, (e) => approvalOf(e, { status: "APPROVED", decidedAt: long, decidedBy: "u" })),
      decidedLately: awaitingApproval(T0, (e) =>
        approvalOf(e, { status: "REJECTED", decidedAt: now - 1_000, decidedBy: "u" }),
      ),
    };
    for (const [e, a] of Object.values(cases)) {
      await p.store.executions.create(e);
      await p.store.approvals.create(a);
    }
    // Held still awaiting (a resumed debug run writes its hold at once) by a run that died, its command lost: its
    // approval is pending, and its dead holder is what keeps it.
    const [orphaned, pending] = awaitingApproval(T0, (e) => approvalOf(e, { expiresAt: now + 60_000 }));
    orphaned.holder = { actor: "a-dead-one", seq: 7, since: T0 };
    await p.store.executions.create(orphaned);
    await p.store.approvals.create(pending);

    const sweep = startStrandedSweep(p, p.log);
    onTestFinished(() => sweep.stop());
    expect(await sweep.sweep(now)).toBe(3);
    expect(await resumeOf(p, orphaned.id)).toEqual({
      executionId: orphaned.id,
      reason: "takeover",
      from: { actor: "a-dead-one", seq: 7 },
    });
    const ns = p.config.WF_NAMESPACE;
    const sent = Object.fromEntries(
      await Promise.all(
        Object.entries(cases).map(
          async ([name, [e, a]]) =>
            [
              name,
              {
                expiry: await lastOn(p, subjects(ns).approval("expire", a.id, a.executionId)),
                resume: await resumeOf(p, e.id),
              },
            ] as const,
        ),
      ),
    );
    const [expired, decided] = [cases.expired, cases.decided];
    expect(sent).toEqual({
      expired: { expiry: { approvalId: expired[1].id, executionId: expired[0].id }, resume: null },
      expiresLater: { expiry: null, resume: null },
      decided: { expiry: null, resume: { executionId: decided[0].id, reason: "approval", stepPath: "gate" } },
      decidedLately: { expiry: null, resume: null },
    });
  });

  it("an approval whose expiry timer was lost expires through the approvals service, and its execution fails", async () => {
    // Executor and approvals, no scheduler: no timer fires here, and the one armed is purged as well.
    const rt = await startRuntime(testConfig(nats.server, { WF_NAMESPACE: uniqueNamespace() }), { scheduler: false });
    onTestFinished(() => rt.stop());
    const p = rt.platform;
    const id = await run(
      p,
      `name: lost-expiry
steps:
  - name: gate
    type: transform
    manual_approval: { message: "go?", timeout: 1 }
    output: done
`,
    );
    await waitForStatus(p, id, ["AWAITING_APPROVAL"]);
    await p.jsm.streams.purge(streamNames(rt.ns).timer);
    const approval = (await p.store.approvals.listByExecution(id))[0]!;
    // The approvals service reads the clock too: the sweep is told two minutes on once the expiry has passed.
    await waitFor(() => Date.now() > approval.expiresAt, { what: "the approval's expiry" });

    const sweep = startStrandedSweep(p, p.log);
    onTestFinished(() => sweep.stop());
    expect(await sweep.sweep(approval.expiresAt + STALE_AFTER_MS + 1_000)).toBe(1);
    const ended = await waitForStatus(p, id);
    expect(ended.status).toBe("FAILED");
    expect(ended.steps.gate!.status).toBe("EXPIRED");
    expect((await p.store.approvals.get(approval.id))?.value).toMatchObject({
      status: "EXPIRED",
      decidedBy: "timeout",
    });
  });

  it("keeps stored the definition an open execution's record names, once its last put is a day old", async () => {
    const p = await openPlatform(testConfig(nats.server), "stranded-test");
    onTestFinished(() => p.close());
    const ns = p.config.WF_NAMESPACE;
    const stored = await StoredDefinitions.open(p.nc, ns, p.placement, p.log, p.config.WF_EXECUTION_RETENTION);
    const open = sharedDefinition({ name: `open-${newId()}`, steps: [] }, "owner-open");
    const done = sharedDefinition({ name: `done-${newId()}`, steps: [] }, "owner-open");
    const kv = await new Kvm(p.nc).open(definitionsBucket(ns));
    const revisions = async () =>
      Promise.all([open, done].map(async (d) => (await kv.get((await stored.refOf(d, "owner-open"))!))?.revision));
    const [openAt, doneAt] = await revisions();
    const waiting = execution({ definition: open });
    await p.store.executions.create(waiting);
    await p.store.executions.create(execution({ definition: done, status: "COMPLETED", completedAt: T0 }));
    const record = await (await new Kvm(p.nc).open(`${ns}_executions`)).get(keyToken(waiting.id));
    expect(record!.json<Record<string, unknown>>()).toMatchObject({ definitionRef: await stored.refOf(open, "o") });

    const sweep = startStrandedSweep(p, p.log);
    onTestFinished(() => sweep.stop());
    const now = Date.now();
    expect(await sweep.sweep(now + 23 * 3_600_000)).toBe(0);
    expect(await revisions()).toEqual([openAt, doneAt]);
    expect(await sweep.sweep(now + 25 * 3_600_000)).toBe(0);
    const [openThen, doneThen] = await revisions();
    expect(openThen).toBeGreaterThan(openAt!);
    expect(doneThen).toBe(doneAt);
    // Put again at that pass's time: not again an hour on.
    expect(await sweep.sweep(now + 26 * 3_600_000)).toBe(0);
    expect(await revisions()).toEqual([openThen, doneThen]);
  });
});
