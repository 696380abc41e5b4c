import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelExecution, startExecution, tailEvents } from "@wf/shared/client";
import type { ExecutionEvent } from "@wf/shared/execution";
import type { ApprovalDecision } from "@wf/shared/api";
import { Kvm } from "@nats-io/kv";
import { checkStart, firstSnapshot, laneOf, newId, sharedDefinition } from "@wf/shared/execution";
import { nanos } from "@nats-io/nats-core";
import {
  consumerNames,
  definitionRef,
  definitionsBucket,
  definitionsTtlMs,
  ONE_REPLICA,
  StoredDefinitions,
  streamNames,
  subjects,
} from "@wf/shared/nats";
import { keyToken, settleApproval } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { sleepers, sleepMarker } from "@wf/testing";
import {
  definitionOf,
  pendingStart,
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import type { SideEffects } from "../support/side-effects";
import { sideEffects } from "../support/side-effects";

/** Shared by the plain run and the WF_REDELIVER_ONCE run (every command handled twice). */
/** Definitions stored in `rt`'s namespace, as its edge stores them. */
function storedDefinitions(rt: InProcessRuntime): Promise<StoredDefinitions> {
  const p = rt.platform;
  return StoredDefinitions.open(p.nc, rt.ns, ONE_REPLICA, p.log, p.config.WF_EXECUTION_RETENTION);
}

export function lifecycleSuite(env: Record<string, string> = {}): void {
  let server: NatsServerHandle;
  let rt: InProcessRuntime;

  beforeAll(async () => {
    server = await startNatsServer();
    // Waits over 100 ms park the execution: the durable timer path is the one under test.
    rt = await startRuntime(testConfig(server, { WF_HOLD_WAIT_MS: "100", ...env }));
  });
  afterAll(async () => {
    await rt?.stop();
    await server?.stop();
  });

  describe("events", () => {
    it("publishes execution and step events on <ns>.evt.<owner>.<workflow>.<exec>.<type>, in order", async () => {
      const id = await run(
        rt.platform,
        `
  name: ev
  steps:
    - { name: a, type: transform, output: 1 }
    - { name: b, type: transform, condition: "false", output: 2 }
    - { name: c, type: code, language: javascript, code: "return 3" }
  `,
        { ownerId: "ops" },
      );
      await waitForStatus(rt.platform, id);
      const seen: ExecutionEvent[] = [];
      const subjectsSeen: string[] = [];
      const ac = new AbortController();
      const consumer = await rt.platform.js.consumers.get(`${rt.ns}_EVT`, {
        filter_subjects: subjects(rt.ns).eventFilter({ executionId: id }),
      });
      const msgs = await consumer.consume();
      for await (const m of msgs) {
        subjectsSeen.push(m.subject);
        seen.push(JSON.parse(m.string()));
        if (seen.at(-1)!.type === "exec_completed") break;
      }
      ac.abort();
      expect(seen.map((e) => `${e.type}${e.step ? `:${e.step}` : ""}`)).toEqual([
        "exec_started",
        "step_started:a",
        "step_completed:a",
        "step_skipped:b",
        "step_started:c",
        "step_completed:c",
        "exec_completed",
      ]);
      expect(subjectsSeen[0]).toBe(`${rt.ns}.evt.ops.wf-ev.${id}.exec_started`);
      expect(seen.at(-1)!.data.output).toBe(3);
      expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    });

    it("tailEvents follows new events of one execution", async () => {
      const ac = new AbortController();
      const got: string[] = [];
      const idPromise = run(
        rt.platform,
        `
  name: tail
  steps:
    - { name: pause, type: wait, seconds: 0.3 }
    - { name: done, type: transform, output: ok }
  `,
      );
      const id = await idPromise;
      const tail = (async () => {
        for await (const e of tailEvents(
          rt.platform.js,
          rt.ns,
          { executionId: id, since: Date.now() - 60_000 },
          ac.signal,
        )) {
          got.push(e.type);
          if (e.type === "exec_completed") break;
        }
      })();
      await tail;
      ac.abort();
      expect(got[0]).toBe("exec_started");
      expect(got).toContain("step_waiting");
      expect(got).toContain("exec_parked");
      expect(got.at(-1)).toBe("exec_completed");
    });
  });

  describe("durable waits (parked)", () => {
    it("a wait longer than the hold threshold parks the execution and the timer resumes it", async () => {
      const id = await run(
        rt.platform,
        `
  name: parked
  steps:
    - { name: before, type: transform, output: 1 }
    - { name: pause, type: wait, seconds: 0.6 }
    - { name: after, type: transform, output: "{{ steps.before.output + 1 }}" }
  `,
      );
      const parked = await waitFor(
        async () => {
          const v = await rt.platform.store.executions.get(id);
          return v?.value.steps.pause?.waitUntil && v.value.holder === null ? v.value : undefined;
        },
        { what: "the execution to park" },
      );
      expect(parked.status).toBe("RUNNING");
      expect(parked.currentStep).toBe("pause");
      expect(parked.steps.after).toBeUndefined();
      const done = await waitForStatus(rt.platform, id);
      expect(done.status).toBe("COMPLETED");
      expect(done.output).toBe(2);
      expect(Date.now()).toBeGreaterThanOrEqual(parked.steps.pause!.waitUntil!);
    });

    it("parked in one branch while the other ran on, the execution is at the step it waits on", async () => {
      const id = await run(
        rt.platform,
        `
  name: parked-branch
  steps:
    - name: group
      type: parallel
      branches:
        a: [ { name: pause, type: wait, seconds: 0.6 } ]
        b: [ { name: first, type: transform, output: 1 }, { name: second, type: transform, output: 2 } ]
  `,
      );
      const parked = await waitFor(
        async () => {
          const v = await rt.platform.store.executions.get(id);
          return v?.value.steps.second?.status === "COMPLETED" && v.value.holder === null ? v.value : undefined;
        },
        { what: "the execution to park with its other branch done" },
      );
      expect(parked).toMatchObject({ status: "RUNNING", currentStep: "pause" });
      expect(await waitForStatus(rt.platform, id)).toMatchObject({ status: "COMPLETED", currentStep: null });
    });

    it("a retry backoff longer than the hold threshold parks too", async () => {
      const fx = await sideEffects();
      const id = await run(
        rt.platform,
        `
  name: backoff
  variables:
    fx: { type: string, required: true }
  steps:
    - name: flaky
      type: code
      language: bash
      network: { allow: ["${fx.allow}"] }
      retry: { max_attempts: 2, backoff: fixed, initial_delay: 0.5 }
      code: |
        if [ "$(curl -s -X POST "$WF_VAR_fx/tries")" -ge 2 ]; then echo ok; else exit 1; fi
  `,
        { inputs: { fx: fx.url } },
      );
      await waitFor(
        async () => {
          const v = await rt.platform.store.executions.get(id);
          return v?.value.steps.flaky?.retryAt && v.value.holder === null ? true : undefined;
        },
        { what: "the backoff to park" },
      );
      const done = await waitForStatus(rt.platform, id);
      expect(done.status).toBe("COMPLETED");
      expect(done.steps.flaky!.attempts).toBe(2);
      expect(done.steps.flaky!.output).toBe("ok");
    });
  });

  describe("PENDING first (the API's path)", () => {
    it("an execution written PENDING before its start command is picked up and run", async () => {
      const definition = definitionOf(`
  name: pending-first
  variables:
    n: { type: number, required: true }
  steps:
    - { name: a, type: transform, output: "{{ vars.n + 1 }}" }
  `);
      const workflow = { id: "wf-pending", name: definition.name, ownerId: "owner1", version: 1, definition };
      const noExecutor = { js: rt.platform.js, store: rt.platform.store };
      await expect(
        startExecution(
          noExecutor.js,
          rt.ns,
          { workflow, inputs: { n: "x" }, triggerSource: "open_api" },
          { store: noExecutor.store },
        ),
      ).rejects.toThrow(/invalid inputs: n/);
      const id = await startExecution(
        noExecutor.js,
        rt.ns,
        { workflow, inputs: { n: 1 }, triggerSource: "open_api" },
        { store: noExecutor.store },
      );
      const s = await waitForStatus(rt.platform, id);
      expect(s.status).toBe("COMPLETED");
      expect(s.output).toBe(2);
      expect(s.triggerSource).toBe("open_api");
    });

    it("a start naming its definition by reference, as the edge's do, runs the definition stored under it", async () => {
      // The executor made the bucket expire its entries as the retention says.
      const bucket = await rt.platform.jsm.streams.info(`KV_${definitionsBucket(rt.ns)}`);
      expect(bucket.config.max_age).toBe(nanos(definitionsTtlMs(rt.platform.config.WF_EXECUTION_RETENTION) ?? 0));
      const definitions = await storedDefinitions(rt);
      const definition = sharedDefinition(
        definitionOf(`
  name: by-reference
  steps:
    - { name: a, type: transform, output: "{{ vars.n * 2 }}" }
  variables:
    n: { type: number, required: true }
  `),
        "owner1",
      );
      const workflow = { id: "wf-by-ref", name: "by-reference", ownerId: "owner1", version: 2, definition };
      const start = (n: number) =>
        startExecution(
          rt.platform.js,
          rt.ns,
          { workflow, inputs: { n }, triggerSource: "webhook" },
          { store: rt.platform.store, definitions },
        );
      const runs = await Promise.all([start(1), start(2)]);
      const ended = await Promise.all(runs.map((id) => waitForStatus(rt.platform, id)));
      expect(ended.map((s) => [s.status, s.output, s.definition])).toEqual([
        ["COMPLETED", 2, definition],
        ["COMPLETED", 4, definition],
      ]);
    });

    it("a saved version's start carrying its definition (a cron tick's) leaves a record naming it; an inline run's does not", async () => {
      const yaml = (name: string) => `
  name: ${name}-${newId()}
  steps:
    - { name: a, type: transform, output: 7 }
  `;
      const kv = new Kvm(rt.platform.nc);
      const atRest = async (id: string) =>
        (await (await kv.open(`${rt.ns}_executions`)).get(keyToken(id)))!.json<Record<string, unknown>>();
      const saved = yaml("saved");
      const inline = yaml("inline");
      const ids = [await run(rt.platform, saved, { version: 4 }), await run(rt.platform, inline)];
      for (const id of ids) expect((await waitForStatus(rt.platform, id)).status).toBe("COMPLETED");
      const [savedRef, inlineRef] = [saved, inline].map((y) => definitionRef(JSON.stringify(definitionOf(y))));

      expect(await atRest(ids[0]!)).toMatchObject({ definitionRef: savedRef });
      expect((await (await kv.open(`${rt.ns}_definitions`)).get(savedRef!))!.json()).toEqual(definitionOf(saved));
      expect((await atRest(ids[1]!)).definition).toEqual(definitionOf(inline));
      expect(await (await kv.open(`${rt.ns}_definitions`)).get(inlineRef!)).toBeNull();
      for (const [id, y] of [
        [ids[0]!, saved],
        [ids[1]!, inline],
      ] as const)
        expect((await rt.platform.store.executions.get(id))!.value.definition).toEqual(definitionOf(y));
    });

    it("a definition named by reference leaves its record's room to the steps' results", async () => {
      const definitions = await storedDefinitions(rt);
      // 200 KB of definition and four results of 120 KB: more than a record holding the definition has room for.
      const definition = sharedDefinition(
        definitionOf(`
  name: large-definition
  description: ${"d".repeat(200_000)}
  steps:
    - { name: a, type: transform, output: "{{ $pad('', 120000, 'a') }}" }
    - { name: b, type: transform, output: "{{ $pad('', 120000, 'b') }}" }
    - { name: c, type: transform, output: "{{ $pad('', 120000, 'c') }}" }
    - { name: d, type: transform, output: "{{ $pad('', 120000, 'd') }}" }
    - { name: e, type: transform, output: 5 }
  `),
        "owner1",
      );
      const workflow = { id: "wf-large", name: "large-definition", ownerId: "owner1", version: 1, definition };
      const id = await startExecution(
        rt.platform.js,
        rt.ns,
        { workflow, triggerSource: "webhook" },
        { store: rt.platform.store, definitions },
      );
      const s = await waitForStatus(rt.platform, id);
      expect({ status: s.status, error: s.error, output: s.output }).toEqual({
        status: "COMPLETED",
        error: null,
        output: 5,
      });
      expect((s.steps.d!.output as string).length).toBe(120_000);
    });

    it("a start naming a definition stored nowhere ends FAILED, saying which", async () => {
      const { cmd, executionId } = pendingStart(rt.platform, "unstored", 1, "webhook");
      const ref = definitionRef(JSON.stringify({ name: "never stored", steps: [] }));
      const body = { ...cmd, pending: false, workflow: { ...cmd.workflow, definition: undefined, definitionRef: ref } };
      await rt.platform.js.publish(subjects(rt.ns).execStart(executionId), JSON.stringify(body));
      const s = await waitForStatus(rt.platform, executionId);
      expect({ status: s.status, error: s.error }).toEqual({
        status: "FAILED",
        error: `the workflow definition the start command names (${ref}) is not stored`,
      });
    });

    /** A `pending` start of a one-step workflow, published without its snapshot. */
    async function publishPendingStart(name: string, output: number, triggerSource: "open_api" | "webhook") {
      const start = pendingStart(rt.platform, name, output, triggerSource);
      return { ...start, seq: await start.publish() };
    }

    it("a start whose PENDING snapshot was removed (its caller was told it failed) is dropped, never run", async () => {
      // What the edge leaves after a write it believed failed: the command, without its snapshot.
      const { executionId } = await publishPendingStart("withdrawn", 1, "open_api");
      const jsm = await rt.platform.js.jetstreamManager();
      const stillQueued = async () =>
        (await jsm.streams.getMessage(streamNames(rt.ns).cmd, {
          last_by_subj: subjects(rt.ns).execStart(executionId),
        })) !== null;
      expect(await stillQueued()).toBe(true);
      await waitFor(async () => !(await stillQueued()), {
        what: "the executor to take and acknowledge the start",
        timeoutMs: 20_000,
      });
      expect(await rt.platform.store.executions.get(executionId)).toBeNull();
    });

    it("a start command delivered before its PENDING snapshot can be read waits for it and runs it", async () => {
      const { cmd, executionId, seq } = await publishPendingStart("overtaken", 41, "webhook");
      // The command was delivered before its snapshot existed (as when a read is served by a
      // replica that lags the write): the executor asked for it again instead of running it.
      const jsm = await rt.platform.js.jetstreamManager();
      await waitFor(
        async () => {
          const info = await jsm.consumers.info(
            streamNames(rt.ns).cmd,
            consumerNames().executorLane(laneOf(executionId)),
          );
          return info.delivered.stream_seq >= seq && info.num_redelivered > 0 ? true : undefined;
        },
        { what: "the executor to find the command without its snapshot" },
      );
      const checked = checkStart(cmd.workflow.definition, cmd.inputs, cmd.workflow.ownerId);
      if (!checked.ok) throw new Error(checked.error);
      await rt.platform.store.executions.create(firstSnapshot(cmd, checked, "PENDING", null));
      const s = await waitForStatus(rt.platform, executionId);
      expect(s.status).toBe("COMPLETED");
      expect(s.output).toBe(41);
      expect(s.triggerSource).toBe("webhook");
    });
  });

  describe("timeouts of parked steps", () => {
    it("a wait longer than its timeout fails at the deadline, parked or not", async () => {
      const id = await run(
        rt.platform,
        `
  name: wait-timeout
  steps:
    - name: group
      type: parallel
      timeout: 0.5
      branches:
        a: [ { name: pause, type: wait, seconds: 60 } ]
    - { name: never, type: transform, output: 1 }
  `,
      );
      const s = await waitForStatus(rt.platform, id);
      expect(s.status).toBe("FAILED");
      expect(s.steps.group!.error).toMatch(/timed out after 0.5 s/);
      expect(s.steps.pause!.status).toBe("CANCELLED");
      expect(s.steps.never).toBeUndefined();
    });
  });

  describe("retry of containers", () => {
    it("a foreach retried after a failed item runs its items afresh", async () => {
      const fx = await sideEffects();
      const id = await run(
        rt.platform,
        `
  name: foreach-retry
  variables:
    fx: { type: string, required: true }
  steps:
    - name: each
      type: foreach
      items: [1, 2, 3]
      retry: { max_attempts: 2, backoff: fixed, initial_delay: 0.05 }
      steps:
        - name: work
          type: code
          language: bash
          network: { allow: ["${fx.allow}"] }
          code: |
            curl -s -X POST --data "$WF_ITEM" "$WF_VAR_fx/log" > /dev/null
            if [ "$WF_ITEM" = 2 ] && [ "$(curl -s -X POST "$WF_VAR_fx/failed")" = 1 ]; then exit 1; fi
            echo "$WF_ITEM"
  `,
        { inputs: { fx: fx.url } },
      );
      const s = await waitForStatus(rt.platform, id);
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.each!.attempts).toBe(2);
      expect(s.steps.each!.output).toEqual([1, 2, 3]);
      expect(fx.lines("log")).toEqual(["1", "2", "1", "2", "3"]);
    });
  });

  describe("cancel", () => {
    it("cancels a running execution: the step's process is killed and the execution ends CANCELLED", async () => {
      const marker = sleepMarker();
      const id = await run(
        rt.platform,
        `
  name: cancel-running
  steps:
    - name: long
      type: code
      language: bash
      code: sleep ${marker}
    - { name: never, type: transform, output: 1 }
  `,
      );
      await waitFor(() => sleepers(marker).length === 1, { what: "the step to start" });
      await cancelExecution(rt.platform.js, rt.ns, id);
      const s = await waitForStatus(rt.platform, id);
      expect(s.status).toBe("CANCELLED");
      expect(s.steps.long!.status).toBe("CANCELLED");
      expect(s.steps.never).toBeUndefined();
      await waitFor(() => sleepers(marker).length === 0, { what: "the step's process to be gone" });
    });

    it("cancels a parked execution", async () => {
      const id = await run(
        rt.platform,
        `
  name: cancel-parked
  steps:
    - { name: pause, type: wait, seconds: 600 }
    - { name: never, type: transform, output: 1 }
  `,
      );
      await waitFor(
        async () => {
          const v = await rt.platform.store.executions.get(id);
          return v?.value.steps.pause?.waitUntil && v.value.holder === null ? true : undefined;
        },
        { what: "the execution to park" },
      );
      await cancelExecution(rt.platform.js, rt.ns, id);
      const s = await waitForStatus(rt.platform, id);
      expect(s.status).toBe("CANCELLED");
      expect(s.steps.pause!.status).toBe("CANCELLED");
    });
  });

  describe("manual_approval", () => {
    /** What the edge does on approve/reject: the decision by compare-and-set, then the command. */
    async function decide(
      approvalId: string,
      verb: "approve" | "reject",
      comment: string | null = null,
    ): Promise<void> {
      const decidedAt = Date.now();
      const settled = await settleApproval(rt.platform.store, approvalId, (a) => ({
        ...a,
        status: verb === "approve" ? "APPROVED" : "REJECTED",
        decidedAt,
        decidedBy: "reviewer",
        comment,
      }));
      expect(settled.won).toBe(true);
      const cmd: ApprovalDecision = {
        approvalId,
        executionId: settled.record!.executionId,
        verb,
        decidedBy: "reviewer",
        decidedAt,
        comment,
        editedItems: null,
      };
      await rt.platform.js.publish(subjects(rt.ns).approval(verb, approvalId, cmd.executionId), JSON.stringify(cmd), {
        msgID: `${approvalId}.${verb}`,
      });
    }

    async function pendingApproval(executionId: string): Promise<string> {
      await waitForStatus(rt.platform, executionId, ["AWAITING_APPROVAL"]);
      const [a] = await rt.platform.store.approvals.listByExecution(executionId);
      expect(a).toMatchObject({ status: "PENDING" });
      return a!.id;
    }

    const gated = (fx: SideEffects, timeout = 600) => `
  name: gated-run
  steps:
    - name: apply
      type: code
      language: bash
      network: { allow: ["${fx.allow}"] }
      manual_approval: { message: go?, timeout: ${timeout} }
      code: "curl -s -X POST --data ran ${fx.url}/runs > /dev/null; echo ok"
    - { name: after, type: transform, output: 1 }
  `;

    it("approved: the gated step runs exactly once after the decision", async () => {
      const fx = await sideEffects();
      const id = await run(rt.platform, gated(fx));
      const approvalId = await pendingApproval(id);
      expect(fx.lines("runs")).toEqual([]);
      expect((await rt.platform.store.executions.get(id))?.value.currentStep).toBe("apply");
      await decide(approvalId, "approve");
      const s = await waitForStatus(rt.platform, id);
      expect(s.status).toBe("COMPLETED");
      expect(s.steps.apply).toMatchObject({ status: "COMPLETED", output: "ok", approvalId });
      expect(fx.lines("runs")).toEqual(["ran"]);
      expect(await rt.platform.store.approvals.listByExecution(id)).toHaveLength(1);
    });

    it("rejected: the gated step never runs and what follows is skipped", async () => {
      const fx = await sideEffects();
      const id = await run(rt.platform, gated(fx));
      const approvalId = await pendingApproval(id);
      await decide(approvalId, "reject", "no");
      const s = await waitForStatus(rt.platform, id);
      expect(s).toMatchObject({ status: "FAILED", error: `approval ${approvalId} rejected: no` });
      expect(s.steps.apply!.status).toBe("REJECTED");
      expect(s.steps.after!.status).toBe("SKIPPED");
      expect(fx.lines("runs")).toEqual([]);
    });

    it("expired: the timeout timer rejects it", async () => {
      const fx = await sideEffects();
      const id = await run(rt.platform, gated(fx, 1));
      const approvalId = await pendingApproval(id);
      const s = await waitForStatus(rt.platform, id);
      expect(s).toMatchObject({ status: "FAILED", error: `approval ${approvalId} expired` });
      const record = await rt.platform.store.approvals.get(approvalId);
      expect(record!.value).toMatchObject({ status: "EXPIRED", decidedBy: "timeout" });
      expect(record!.value.decidedAt!).toBeGreaterThanOrEqual(record!.value.expiresAt);
      expect(fx.lines("runs")).toEqual([]);
    });
  });
}
