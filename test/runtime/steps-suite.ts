import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArtifactFiles } from "@wf/shared/artifacts";
import { addStep, setLanguage, type EditResult } from "@wf/shared/canvas";
import { newId } from "@wf/shared/execution";
import { subjects } from "@wf/shared/nats";
import { PLAN_CODE_TIMEOUT_SECONDS, type Plan } from "@wf/shared/auth";
import { newWorkflowRecord } from "@wf/shared/store";
import { CODE_LANGUAGES } from "@wf/shared/workflow";
import { testUser, type NatsServerHandle } from "@wf/testing";
import {
  definitionOf,
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import { sideEffects } from "../support/side-effects";

/** Shared by the plain run and the WF_REDELIVER_ONCE run (every command handled twice). */
export function stepSuite(env: Record<string, string> = {}): void {
  let server: NatsServerHandle;
  let rt: InProcessRuntime;

  beforeAll(async () => {
    server = await startNatsServer();
    rt = await startRuntime(testConfig(server, env));
  });
  afterAll(async () => {
    await rt?.stop();
    await server?.stop();
  });

  async function runToEnd(yaml: string, opts: Parameters<typeof run>[2] = {}) {
    const id = await run(rt.platform, yaml, opts);
    return waitForStatus(rt.platform, id);
  }

  describe("transform", () => {
    it("sees variables and earlier outputs; the last output is the execution's", async () => {
      const s = await runToEnd(
        `
  name: t1
  variables:
    who: { type: string, default: world }
    n: { type: number, required: true }
  steps:
    - name: a
      type: transform
      output: { greeting: "hello {{ vars.who }}", double: "{{ vars.n * 2 }}" }
    - name: b
      type: transform
      output: "{{ steps.a.output.double + 1 }}"
  `,
        { inputs: { n: 20 } },
      );
      expect(s.status).toBe("COMPLETED");
      expect(s.steps.a!.output).toEqual({ greeting: "hello world", double: 40 });
      expect(s.output).toBe(41);
      expect(s.completedSteps).toBe(2);
      expect(s.totalSteps).toBe(2);
    });

    it("an expression error fails the step with the step and the expression named", async () => {
      const s = await runToEnd(`
  name: t2
  steps:
    - name: broken
      type: transform
      output: "{{ $number('abc') + $undefinedFn(1) }}"
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.broken!.status).toBe("FAILED");
      expect(s.error).toContain("step `broken`");
      expect(s.error).toContain("$number('abc') + $undefinedFn(1)");
    });
  });

  describe("inputs", () => {
    it("an input of the wrong type or for no variable fails the execution saying which", async () => {
      const s = await runToEnd(
        `
  name: i1
  variables:
    n: { type: number, required: true }
  steps:
    - { name: a, type: transform, output: 1 }
  `,
        { inputs: { n: "five", extra: 1 } },
      );
      expect(s.status).toBe("FAILED");
      expect(s.error).toMatch(/invalid inputs/);
      expect(s.error).toContain("n:");
      expect(s.error).toContain("extra");
    });
  });

  describe("code", () => {
    it("reaches the network only through the egress proxy, within its owner's egress list", async () => {
      const [allowed, other] = [await sideEffects(), await sideEffects()];
      const owner = `owner-${newId()}`;
      const now = Date.now();
      await rt.platform.store.users.create({
        id: owner,
        email: `${owner}@example.com`,
        passwordHash: "x",
        plan: "pro",
        status: "active",
        egressAllow: [allowed.allow],
        createdAt: now,
        updatedAt: now,
      });
      const s = await runToEnd(
        `
  name: egress-owner
  steps:
    - name: call
      type: code
      language: bash
      network: true
      code: |
        curl -s -X POST --data hello ${allowed.url}/calls > /dev/null
        curl -s -o /dev/null -w "%{http_code}" -X POST ${other.url}/calls
  `,
        { ownerId: owner, monitoring: true },
      );
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.call!.output).toBe(403);
      expect([allowed.lines("calls"), other.lines("calls")]).toEqual([["hello"], []]);
      expect(s.steps.call!.logs).toContainEqual(
        expect.stringMatching(/^\[network\] refused 127\.0\.0\.2:\d+: .* is not in the owner's egress list$/),
      );
    });

    it("runs JavaScript, Python and Bash with variables, input and earlier outputs", async () => {
      const s = await runToEnd(
        `
  name: c1
  variables:
    ticket: { type: string, required: true }
    tags: { type: array, default: [a, b] }
  steps:
    - name: js
      type: code
      language: javascript
      input: { t: "{{ vars.ticket }}" }
      code: |
        return { from: "js", ticket: input.t, tags: vars.tags.length };
    - name: py
      type: code
      language: python
      input: { prev: "{{ steps.js.output }}" }
      code: |
        import json, os
        inp = json.loads(os.environ["WF_INPUT"])
        print(json.dumps({"from": "py", "ticket": os.environ["WF_VAR_ticket"], "tags": json.loads(os.environ["WF_VAR_tags"]), "prev": inp["prev"]["from"]}))
    - name: sh
      type: code
      language: bash
      code: |
        echo "log line"
        echo "{\\"from\\": \\"bash\\", \\"ticket\\": \\"$WF_VAR_ticket\\"}"
  `,
        { inputs: { ticket: "T-9" } },
      );
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.js!.output).toEqual({ from: "js", ticket: "T-9", tags: 2 });
      expect(s.steps.py!.output).toEqual({ from: "py", ticket: "T-9", tags: ["a", "b"], prev: "js" });
      expect(s.steps.sh!.output).toEqual({ from: "bash", ticket: "T-9" });
    });

    it("runs the starter a new code step gets in each language, as the console's panel switches it", async () => {
      let text = "name: starters\nsteps:\n  - { name: first, type: wait, seconds: 0 }\n";
      const edited = (result: EditResult): string => {
        if (!result.ok) throw new Error(result.error);
        return result.text;
      };
      for (const language of CODE_LANGUAGES) {
        text = edited(addStep(text, { type: "code", name: language }));
        text = edited(setLanguage(text, { id: language, language }));
      }
      const s = await runToEnd(text);
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(Object.fromEntries(CODE_LANGUAGES.map((language) => [language, s.steps[language]?.output]))).toEqual(
        Object.fromEntries(CODE_LANGUAGES.map((language) => [language, "hello"])),
      );
    });

    it("a non-zero exit fails the step with stderr's tail", async () => {
      const s = await runToEnd(`
  name: c2
  steps:
    - name: bad
      type: code
      language: bash
      code: |
        echo "something broke: disk full" >&2
        exit 3
    - { name: never, type: transform, output: 1 }
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.bad!.error).toContain("disk full");
      expect(s.steps.never).toBeUndefined();
      expect(s.error).toContain("step `bad`");
    });

    it("keeps step input and logs when monitoring is on", async () => {
      const s = await runToEnd(
        `
  name: c3
  steps:
    - name: js
      type: code
      language: javascript
      input: { x: 1 }
      code: |
        console.log("hello from the step");
        return input.x + 1;
  `,
        { monitoring: true },
      );
      expect(s.status).toBe("COMPLETED");
      expect(s.steps.js!.input).toEqual({ x: 1 });
      expect(s.steps.js!.logs!.join("\n")).toContain("hello from the step");
    });

    it("the timeout modifier kills a code step", async () => {
      const s = await runToEnd(`
  name: c4
  steps:
    - name: slow
      type: code
      language: bash
      timeout: 0.5
      code: sleep 30
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.slow!.error).toMatch(/timed out/);
    });

    it("runs a stored code step whose timeout is over its owner's plan's with the plan's, its log saying so", async () => {
      // The step's CPU limit (its timeout and a second) is what its runner was given.
      const yaml = `
  name: c5
  steps:
    - name: long
      type: code
      language: bash
      timeout: 86400
      code: ulimit -t
  `;
      const ownerOn = async (plan: Plan): Promise<string> => {
        const user = testUser({ plan });
        await rt.platform.store.users.create(user);
        return user.id;
      };
      const free = await runToEnd(yaml, { ownerId: await ownerOn("free"), monitoring: true });
      expect(free.status).toBe("COMPLETED");
      expect(free.steps.long!.output).toBe(PLAN_CODE_TIMEOUT_SECONDS.free + 1);
      expect(free.steps.long!.logs).toContain(
        "[timeout] the step asks for 86400 s; the free plan runs a code step for at most 300 s, so it runs with 300 s",
      );
      const enterprise = await runToEnd(yaml.replace("86400", "3600"), {
        ownerId: await ownerOn("enterprise"),
        monitoring: true,
      });
      expect(enterprise.steps.long!.output).toBe(3601);
      expect(enterprise.steps.long!.logs ?? []).toEqual([]);
    });
  });

  describe("artifacts and logs", () => {
    it("files a step writes into WF_ARTIFACTS_DIR become the execution's artifacts", async () => {
      const s = await runToEnd(`
  name: arts
  steps:
    - name: report
      type: code
      language: python
      code: |
        import os
        d = os.environ["WF_ARTIFACTS_DIR"]
        os.makedirs(os.path.join(d, "charts"), exist_ok=True)
        open(os.path.join(d, "summary.txt"), "w").write("all good")
        open(os.path.join(d, "charts", "c.svg"), "w").write("<svg/>")
        print("done")
    - name: js
      type: code
      language: javascript
      code: |
        artifacts.write("note.md", "# from js");
        return 1;
  `);
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.report!.artifacts).toHaveLength(2);
      const listed = await rt.platform.store.artifacts.listByExecution(s.id);
      expect(listed.map((a) => [a.stepName, a.path, a.size, a.previewable]).sort()).toEqual(
        [
          ["js", "note.md", 9, true],
          ["report", "charts/c.svg", 6, true],
          ["report", "summary.txt", 8, true],
        ].sort(),
      );
      const files = await ArtifactFiles.open(rt.platform.nc, rt.ns, rt.platform.placement, rt.platform.store);
      const summary = listed.find((a) => a.name === "summary.txt")!;
      expect(new TextDecoder().decode((await files.read(summary.storageKey))!)).toBe("all good");
    });

    it("with monitoring, a running step's log lines are published live, before it completes", async () => {
      const id = await run(
        rt.platform,
        `
  name: live-logs
  steps:
    - name: chatty
      type: code
      language: bash
      code: |
        echo "first line" >&2
        sleep 0.3
        echo "second line" >&2
        echo '{"ok": true}'
  `,
        { monitoring: true },
      );
      await waitForStatus(rt.platform, id);
      const consumer = await rt.platform.js.consumers.get(`${rt.ns}_EVT`, {
        filter_subjects: subjects(rt.ns).eventFilter({ executionId: id }),
      });
      const types: string[] = [];
      const lines: string[] = [];
      for await (const m of await consumer.consume()) {
        const e = JSON.parse(m.string()) as { type: string; data: { lines?: string[] } };
        types.push(e.type);
        if (e.type === "step_log") lines.push(...e.data.lines!);
        if (e.type === "exec_completed") break;
      }
      expect(lines).toEqual(expect.arrayContaining(["first line", "second line"]));
      expect(types.indexOf("step_log")).toBeLessThan(types.indexOf("step_completed"));
      const s = (await rt.platform.store.executions.get(id))!.value;
      expect(s.steps.chatty!.logs).toEqual(expect.arrayContaining(["first line", "second line"]));
    });
  });

  describe("condition", () => {
    it("skips a step whose condition is false and runs one whose condition is true", async () => {
      const s = await runToEnd(
        `
  name: k1
  variables:
    dry_run: { type: boolean, default: true }
  steps:
    - { name: apply, type: transform, condition: "vars.dry_run = false", output: applied }
    - { name: report, type: transform, condition: "vars.dry_run", output: "{{ steps.apply.status }}" }
  `,
      );
      expect(s.status).toBe("COMPLETED");
      expect(s.steps.apply!.status).toBe("SKIPPED");
      expect(s.steps.report!.output).toBe("SKIPPED");
    });

    it("a condition that fails to evaluate fails the step, naming it", async () => {
      const s = await runToEnd(`
  name: k2
  steps:
    - { name: gate, type: transform, condition: "$error('nope')", output: 1 }
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.gate!.error).toContain("step `gate`");
      expect(s.steps.gate!.error).toContain("$error('nope')");
    });
  });

  describe("retry", () => {
    it("retries with backoff until an attempt succeeds, counting attempts", async () => {
      const fx = await sideEffects();
      const s = await runToEnd(
        `
  name: r1
  variables:
    fx: { type: string, required: true }
  steps:
    - name: flaky
      type: code
      language: bash
      network: { allow: ["${fx.allow}"] }
      retry: { max_attempts: 4, backoff: exponential, initial_delay: 0.05, max_delay: 0.2 }
      code: |
        n=$(curl -s -X POST "$WF_VAR_fx/count")
        if [ $n -lt 3 ]; then echo "attempt $n fails" >&2; exit 1; fi
        echo "{\\"attempt\\": $n}"
  `,
        { inputs: { fx: fx.url } },
      );
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.flaky!.attempts).toBe(3);
      expect(s.steps.flaky!.output).toEqual({ attempt: 3 });
      expect(fx.lines("count")).toHaveLength(3);
    });

    it("gives up after max_attempts with the last error", async () => {
      const s = await runToEnd(`
  name: r2
  steps:
    - name: always
      type: code
      language: javascript
      retry: { max_attempts: 2, backoff: fixed, initial_delay: 0.01 }
      code: throw new Error("still broken")
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.always!.attempts).toBe(2);
      expect(s.steps.always!.error).toContain("still broken");
    });

    it("does not retry an expression error (it cannot succeed)", async () => {
      const s = await runToEnd(`
  name: r3
  steps:
    - name: e
      type: transform
      retry: { max_attempts: 5, initial_delay: 0.01 }
      output: "{{ $error('fatal') }}"
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.e!.attempts).toBe(1);
    });
  });

  describe("foreach", () => {
    it("runs its steps per item with item in scope and collects outputs in order", async () => {
      const s = await runToEnd(`
  name: f1
  steps:
    - name: rows
      type: transform
      output: [{ id: 1, action: close }, { id: 2, action: reply }, { id: 3, action: close }]
    - name: each
      type: foreach
      items: "{{ steps.rows.output }}"
      concurrency: 2
      steps:
        - name: echo
          type: code
          language: bash
          code: |
            echo "{\\"id\\": $WF_ITEM_id, \\"action\\": \\"$WF_ITEM_action\\"}"
        - name: tag
          type: transform
          output: "{{ steps.echo.output.action & '-' & item.id }}"
  `);
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.each!.output).toEqual(["close-1", "reply-2", "close-3"]);
      expect(s.steps["each[1].echo"]!.output).toEqual({ id: 2, action: "reply" });
    });

    it("never runs more than `concurrency` items at once", async () => {
      const s = await runToEnd(`
  name: f2
  steps:
    - name: each
      type: foreach
      items: [1, 2, 3, 4, 5, 6, 7, 8]
      concurrency: 3
      steps:
        - name: work
          type: code
          language: python
          code: |
            import time
            time.sleep(0.25)
            print(1)
  `);
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      const spans = Object.entries(s.steps)
        .filter(([p]) => p.endsWith(".work"))
        .map(([, st]) => [st.startedAt!, st.completedAt!] as const);
      expect(spans).toHaveLength(8);
      let maxOverlap = 0;
      for (const [start] of spans) {
        const overlap = spans.filter(([a, b]) => a <= start && start < b).length;
        maxOverlap = Math.max(maxOverlap, overlap);
      }
      expect(maxOverlap).toBeLessThanOrEqual(3);
      expect(maxOverlap).toBeGreaterThan(1);
    });

    it("fails when an item fails, naming the item", async () => {
      const s = await runToEnd(`
  name: f3
  steps:
    - name: each
      type: foreach
      items: [1, 2, 3]
      steps:
        - name: check
          type: transform
          output: "{{ item = 2 ? $error('bad item') : item }}"
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.each!.error).toContain("item 1");
      expect(s.steps["each[2].check"]).toBeUndefined();
    });

    it("items that are not an array fail the step", async () => {
      const s = await runToEnd(`
  name: f4
  steps:
    - { name: each, type: foreach, items: "{{ 5 }}", steps: [ { name: x, type: transform, output: 1 } ] }
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.each!.error).toMatch(/must evaluate to an array/);
    });
  });

  describe("parallel and wait", () => {
    it("runs branches at once and collects each branch's last output", async () => {
      const s = await runToEnd(`
  name: p1
  steps:
    - name: both
      type: parallel
      branches:
        left:  [ { name: l1, type: transform, output: "{{ 1 + 1 }}" } ]
        right: [ { name: r1, type: wait, seconds: 0.2 }, { name: r2, type: transform, output: done } ]
  `);
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.both!.output).toEqual({ left: 2, right: "done" });
      expect(s.steps.r1!.completedAt!).toBeGreaterThanOrEqual(s.steps.r1!.waitUntil!);
      expect(s.steps.r1!.waitUntil! - s.steps.r1!.startedAt!).toBeGreaterThanOrEqual(200);
    });

    it("a failing branch fails the parallel step", async () => {
      const s = await runToEnd(`
  name: p2
  steps:
    - name: both
      type: parallel
      branches:
        ok:  [ { name: o1, type: transform, output: 1 } ]
        bad: [ { name: b1, type: code, language: javascript, code: "throw new Error('branch broke')" } ]
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.both!.error).toContain("branch bad");
      expect(s.steps.both!.error).toContain("branch broke");
    });

    it("wait until a time in the past completes at once", async () => {
      const s = await runToEnd(`
  name: w1
  steps:
    - { name: pause, type: wait, until: "2020-01-01T00:00:00Z" }
  `);
      expect(s.status).toBe("COMPLETED");
    });

    it("a container's timeout stops what runs inside it", async () => {
      const s = await runToEnd(`
  name: w2
  steps:
    - name: group
      type: parallel
      timeout: 0.3
      branches:
        a: [ { name: long, type: code, language: bash, code: "sleep 20" } ]
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.group!.error).toMatch(/timed out after 0.3 s/);
      expect(s.steps.long!.status).toBe("CANCELLED");
    });
  });

  describe("workflow (sub-workflow)", () => {
    async function saveWorkflow(yaml: string, ownerId = "owner1") {
      const record = newWorkflowRecord({ id: `wf-${newId()}`, ownerId, yaml, definition: definitionOf(yaml) });
      await rt.platform.store.workflows.create(record);
      return record.id;
    }

    it("runs the child with mapped inputs and returns its output", async () => {
      const child = await saveWorkflow(`
  name: child
  variables:
    x: { type: number, required: true }
  steps:
    - { name: sq, type: code, language: javascript, code: "return vars.x * vars.x" }
  `);
      const s = await runToEnd(`
  name: parent
  steps:
    - { name: seed, type: transform, output: 7 }
    - name: call
      type: workflow
      workflow: ${child}
      inputs: { x: "{{ steps.seed.output }}" }
    - { name: after, type: transform, output: "{{ steps.call.output + 1 }}" }
  `);
      expect(s.status, s.error ?? "").toBe("COMPLETED");
      expect(s.steps.call!.output).toBe(49);
      expect(s.output).toBe(50);
      const childRun = await rt.platform.store.executions.get(s.steps.call!.childExecutionId!);
      expect(childRun!.value.parent).toEqual({ executionId: s.id, stepPath: "call", depth: 1 });
      expect(childRun!.value.status).toBe("COMPLETED");
    });

    it("a failing child fails the parent step", async () => {
      const child = await saveWorkflow(`
  name: child-fails
  steps:
    - { name: boom, type: code, language: bash, code: "echo kaput >&2; exit 1" }
  `);
      const s = await runToEnd(`
  name: parent2
  steps:
    - { name: call, type: workflow, workflow: ${child} }
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.call!.error).toContain("ended FAILED");
      expect(s.steps.call!.error).toContain("kaput");
    });

    it("an unknown or invisible workflow fails the step", async () => {
      const other = await saveWorkflow(
        `
  name: private
  steps: [ { name: a, type: transform, output: 1 } ]
  `,
        "someone-else",
      );
      const s = await runToEnd(`
  name: parent3
  steps:
    - { name: call, type: workflow, workflow: ${other} }
  `);
      expect(s.status).toBe("FAILED");
      expect(s.steps.call!.error).toContain(`workflow ${other} not found`);
    });
  });
}
