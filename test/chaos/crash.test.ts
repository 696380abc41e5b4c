import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsServerHandle } from "@wf/testing";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import { streamNames, subjects } from "@wf/shared/nats";
import { startStrandedSweep, STALE_AFTER_MS } from "@wf/scheduler";
import { buildEdge } from "@wf/edge";
import { account, call, startV1, storeWorkflow } from "../api/support";
import { ENTRIES, startServiceProcess, type ServiceProcess } from "../support/processes";
import {
  commandsInHand,
  endedEventTypes,
  eventTypes,
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import type { SideEffects } from "../support/side-effects";
import { EGRESS_TEST_ALLOWANCE } from "../support/egress-allowance";
import { sideEffects, slowRecordedStep } from "../support/side-effects";

/**
 * Crashes: service processes (and the NATS server) die by SIGKILL mid-work; what was durable
 * must carry on, as docs/architecture.md (Restarts) says.
 */
let server: NatsServerHandle;

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A client connection: starts executions and reads snapshots, runs no actor. */
async function client(ns: string): Promise<InProcessRuntime> {
  return startRuntime(testConfig(server, { WF_NAMESPACE: ns }), { executor: false, scheduler: false });
}

function serviceEnv(ns: string, extra: Record<string, string> = {}) {
  return {
    NATS_URL: server.url,
    WF_NAMESPACE: ns,
    WF_EXEC_LEASE_MS: "1000",
    PORT: "0",
    ...EGRESS_TEST_ALLOWANCE,
    ...extra,
  };
}

const startExecutorProcess = (ns: string, extra: Record<string, string> = {}) =>
  startServiceProcess(ENTRIES.executor, serviceEnv(ns, extra), ["executor ready"]);

/** A step that records each run of itself, then takes long enough to be killed mid-way. */
const SLOW_STEP = (fx: SideEffects) => `
name: crash-mid-step
steps:
  - { name: first, type: transform, output: 1 }
${slowRecordedStep(fx, "slow", "runs", '{"done": true}')}
  - { name: last, type: transform, output: "{{ steps.slow.output.done }}" }
`;

describe("executor killed mid-step", () => {
  it.each([
    ["open_api", "INTERRUPTED", 1],
    ["console", "COMPLETED", 2],
  ] as const)("triggerSource %s ends %s", async (source, expected, expectedRuns) => {
    const ns = `crash${source.replace("_", "")}${Date.now() % 100000}`;
    const c = await client(ns);
    const fx = await sideEffects();
    let first: ServiceProcess | null = await startExecutorProcess(ns);
    try {
      const id = await run(c.platform, SLOW_STEP(fx), { triggerSource: source });
      await waitFor(() => fx.lines("runs").length === 1, { what: "the slow step to start" });
      await first.kill();
      first = null;
      const second = await startExecutorProcess(ns);
      try {
        const s = await waitForStatus(c.platform, id, undefined, 30_000);
        expect(s.status).toBe(expected);
        expect(fx.lines("runs")).toHaveLength(expectedRuns);
        if (expected === "INTERRUPTED") {
          expect(s.steps.slow!.status).toBe("FAILED");
          expect(s.steps.slow!.error).toMatch(/interrupted/);
          expect(s.error).toMatch(/not replayed/);
          expect(s.steps.last).toBeUndefined();
        } else {
          expect(s.steps.slow!.attempts).toBe(1);
          expect(s.output).toBe(true);
        }
      } finally {
        await second.kill();
      }
    } finally {
      await first?.kill();
      await c.stop();
    }
  });
});

describe("executor killed mid-step, then cancelled", () => {
  it("an API execution whose cancel answered 200 ends CANCELLED, not INTERRUPTED, and runs nothing more", async () => {
    const ns = `crashcancel${Date.now() % 100000}`;
    const c = await client(ns);
    const app = await buildEdge(c.platform);
    const env = { server, platform: c.platform, app, ns, clock: { now: null }, runtime: null };
    const fx = await sideEffects();
    let first: ServiceProcess | null = await startExecutorProcess(ns);
    try {
      const me = await account(env);
      const id = await startV1(env, me, await storeWorkflow(env, me.user.id, SLOW_STEP(fx)));
      await waitFor(() => fx.lines("runs").length === 1, { what: "the slow step to start" });
      await first.kill();
      first = null;
      // Answered while nobody runs it: the record, still held by the dead executor, keeps the cancel.
      const cancel = await call(env, "POST", `/api/v1/executions/${id}/cancel`, { key: me.key });
      expect(cancel.statusCode).toBe(200);
      const second = await startExecutorProcess(ns);
      try {
        const s = await waitForStatus(c.platform, id, undefined, 30_000);
        expect(s.status).toBe("CANCELLED");
        expect(s.steps.slow!.status).toBe("CANCELLED");
        expect(s.steps.last).toBeUndefined();
        expect(fx.lines("runs")).toHaveLength(1);
      } finally {
        await second.kill();
      }
    } finally {
      await first?.kill();
      await app.close();
      await c.stop();
    }
  });
});

describe("executor killed with its command gone", () => {
  it("is handed on by the scheduler's sweep and completes; a holder that answers keeps it", async () => {
    const ns = `crashlost${Date.now() % 100000}`;
    const c = await client(ns);
    const fx = await sideEffects();
    // Long enough to ask its live holder first; run again after the kill.
    const yaml = `name: crash-lost-command\nsteps:\n${slowRecordedStep(fx, "slow", "runs", '{"done": true}', 5)}\n`;
    const sweep = startStrandedSweep(c.platform, c.platform.log);
    // Past the two minutes it leaves an execution and its holder alone.
    const later = () => Date.now() + STALE_AFTER_MS + 1_000;
    const cmd = streamNames(ns).cmd;
    let first: ServiceProcess | null = await startExecutorProcess(ns);
    try {
      const id = await run(c.platform, yaml, { triggerSource: "console" });
      await waitFor(() => fx.lines("runs").length === 1, { what: "the slow step to start" });
      const held = (await c.platform.store.executions.get(id))!.value.holder!;
      expect(held).not.toBeNull();
      expect(await sweep.sweep(later())).toBe(0);

      // Gone as a purge by hand, or a server's lost disk, takes it: no delivery of it will come again.
      await c.platform.jsm.streams.purge(cmd, { filter: subjects(ns).execStart(id) });
      expect(await sweep.sweep(later())).toBe(0);
      await first.kill();
      first = null;
      expect(await sweep.sweep(later())).toBe(1);

      const second = await startExecutorProcess(ns);
      try {
        const s = await waitForStatus(c.platform, id, undefined, 30_000);
        expect(s).toMatchObject({ status: "COMPLETED", output: { done: true } });
        expect(s.steps.slow!.attempts).toBe(1);
        expect(fx.lines("runs")).toHaveLength(2);

        // A takeover whose holder has moved on is dropped: it is acknowledged, and changes nothing.
        const again = { executionId: id, reason: "takeover", from: { actor: held.actor, seq: held.seq } };
        await c.platform.js.publish(subjects(ns).execResume(id), JSON.stringify(again));
        await waitFor(async () => (await c.platform.jsm.streams.info(cmd)).state.messages === 0, {
          what: "the takeover to be handled",
        });
        expect((await c.platform.store.executions.get(id))!.value).toEqual(s);
      } finally {
        await second.kill();
      }
    } finally {
      await first?.kill();
      await sweep.stop();
      await c.stop();
    }
  });
});

describe("a parked execution whose timer is lost", () => {
  it("is woken by the scheduler's sweep once its wait is two minutes overdue, and completes", async () => {
    const ns = `crashtimerlost${Date.now() % 100000}`;
    const c = await client(ns);
    const sweep = startStrandedSweep(c.platform, c.platform.log);
    // No scheduler fires timers here, and the one armed is purged as well.
    const executor = await startExecutorProcess(ns, { WF_HOLD_WAIT_MS: "100" });
    try {
      const yaml = `name: lost-timer
steps:
  - { name: pause, type: wait, seconds: 2 }
  - { name: after, type: transform, output: woken }
`;
      const id = await run(c.platform, yaml, { triggerSource: "console" });
      const due = await waitFor(
        async () => {
          const v = (await c.platform.store.executions.get(id))?.value;
          return v?.holder === null ? (v.steps.pause?.waitUntil ?? undefined) : undefined;
        },
        { what: "the wait to park" },
      );
      await c.platform.jsm.streams.purge(streamNames(ns).timer);
      // The sweep is told the time two minutes on; the executor it wakes reads the clock, which must be past the wait.
      await waitFor(() => Date.now() > due, { what: "the wait's end" });
      expect(await sweep.sweep(due + STALE_AFTER_MS - 1_000)).toBe(0);
      expect(await sweep.sweep(due + STALE_AFTER_MS + 1_000)).toBe(1);
      const s = await waitForStatus(c.platform, id, undefined, 30_000);
      expect(s).toMatchObject({ status: "COMPLETED", output: "woken" });
      expect(s.steps.pause!.completedAt).toBeGreaterThanOrEqual(due);
    } finally {
      await executor.kill();
      await sweep.stop();
      await c.stop();
    }
  });
});

/**
 * A step that acts outside (it records its run), then two pure JavaScript steps slow enough to be
 * killed in, then a transform: the pure steps write nothing of their own before the end.
 */
const PURE_RUN = (fx: SideEffects) => `
name: crash-in-pure-run
steps:
  - name: effect
    type: code
    language: python
    network: { allow: ["${fx.allow}"] }
    code: |
      import urllib.request
      urllib.request.urlopen(urllib.request.Request("${fx.url}/effects", data=b"run", method="POST")).read()
      print('{"n": 20}')
  - name: spin1
    type: code
    language: javascript
    input: { n: "{{ steps.effect.output.n }}" }
    code: |
      const end = Date.now() + 1500;
      while (Date.now() < end) {}
      return input.n * 2;
  - name: spin2
    type: code
    language: javascript
    input: { n: "{{ steps.spin1.output }}" }
    code: return input.n + 1;
  - { name: last, type: transform, output: "{{ steps.spin2.output }}" }
`;

/**
 * Runs `yaml` (its step `effect` acting outside) from the API, kills the executor once the effect's
 * result is stored, and lets a second executor finish it: `check` reads the record at the kill,
 * the ended execution and how often the effect ran.
 */
async function killOnceEffectStored(
  name: string,
  yaml: (fx: SideEffects) => string,
  check: (atKill: ExecutionSnapshot, ended: ExecutionSnapshot, effectRuns: number) => void,
): Promise<void> {
  const ns = `${name}${Date.now() % 100000}`;
  const c = await client(ns);
  const fx = await sideEffects();
  let first: ServiceProcess | null = await startExecutorProcess(ns);
  try {
    const id = await run(c.platform, yaml(fx), { triggerSource: "open_api" });
    const atKill = await waitFor(
      async () => {
        const v = await c.platform.store.executions.get(id);
        return v?.value.steps.effect?.status === "COMPLETED" ? v.value : undefined;
      },
      { what: "the effect's result to be stored" },
    );
    await first.kill();
    first = null;
    const second = await startExecutorProcess(ns);
    try {
      check(atKill, await waitForStatus(c.platform, id, undefined, 30_000), fx.lines("effects").length);
    } finally {
      await second.kill();
    }
  } finally {
    await first?.kill();
    await c.stop();
  }
}

/** Pure from its first step: nothing is written before its end, unless it runs past a second. */
const PURE_FROM_START = `
name: crash-before-first-write
steps:
  - name: spin
    type: code
    language: javascript
    code: |
      const end = Date.now() + 2000;
      while (Date.now() < end) {}
      return 20;
  - { name: last, type: transform, output: "{{ steps.spin.output + 1 }}" }
`;

describe("executor killed inside a pure run, before its first write", () => {
  it("leaves nothing stored or published: the next executor runs it from its command, once", async () => {
    const ns = `crashunwritten${Date.now() % 100000}`;
    const c = await client(ns);
    let first: ServiceProcess | null = await startExecutorProcess(ns);
    try {
      const id = await run(c.platform, PURE_FROM_START, { triggerSource: "open_api" });
      await waitFor(async () => (await commandsInHand(c.platform.jsm, ns)) > 0, { what: "the start to be taken" });
      // Version 0: read from the start command, no record written yet.
      expect((await c.platform.store.executions.get(id))?.version).toBe(0);
      await first.kill();
      first = null;
      expect(await eventTypes(c.platform.jsm, ns, id)).toEqual([]);
      const second = await startExecutorProcess(ns);
      try {
        const ended = await waitForStatus(c.platform, id, undefined, 30_000);
        expect(ended.status).toBe("COMPLETED");
        expect(ended.output).toBe(21);
        expect(ended.steps.spin!.attempts).toBe(1);
        expect(await endedEventTypes(c.platform.jsm, ns, id)).toEqual([
          "exec_started",
          "step_started",
          "step_completed",
          "step_started",
          "step_completed",
          "exec_completed",
        ]);
      } finally {
        await second.kill();
      }
    } finally {
      await first?.kill();
      await c.stop();
    }
  });
});

describe("executor killed inside a run of pure steps", () => {
  it("runs the pure steps again from the effect's stored result, whatever the trigger: the effect ran once", async () => {
    await killOnceEffectStored("crashpure", PURE_RUN, (atKill, s, effectRuns) => {
      // The effect's result was written before the pure step after it ran.
      expect(atKill.steps.spin1?.status).not.toBe("COMPLETED");
      expect(s).toMatchObject({ status: "COMPLETED", output: 41 });
      expect(s.steps.effect).toMatchObject({ status: "COMPLETED", attempts: 1 });
      expect(s.steps.spin1).toMatchObject({ status: "COMPLETED", attempts: 1, output: 40 });
      expect(effectRuns).toBe(1);
    });
  });
});

/** A pure step in one branch, recorded RUNNING by the other branch's writes around its effect. */
const BESIDE_EFFECT = (fx: SideEffects) => `
name: crash-beside-effect
steps:
  - name: both
    type: parallel
    branches:
      pure:
        - name: spin
          type: code
          language: javascript
          code: |
            const end = Date.now() + 5000;
            while (Date.now() < end) {}
            return 7;
      outside:
        - name: effect
          type: code
          language: python
          network: { allow: ["${fx.allow}"] }
          code: |
            import urllib.request
            urllib.request.urlopen(urllib.request.Request("${fx.url}/effects", data=b"run", method="POST")).read()
            print('1')
`;
describe("executor killed beside an effect", () => {
  it("runs a pure step recorded RUNNING again, even for an API trigger; the effect is not repeated", async () => {
    await killOnceEffectStored("crashbeside", BESIDE_EFFECT, (atKill, s, effectRuns) => {
      expect(atKill.steps.spin?.status).toBe("RUNNING");
      expect(s).toMatchObject({ status: "COMPLETED", output: { pure: 7, outside: 1 } });
      expect(s.steps.spin).toMatchObject({ status: "COMPLETED", attempts: 1 });
      expect(effectRuns).toBe(1);
    });
  });
});

describe("durable timers outlive every process", () => {
  it("a wait and a retry backoff complete after SIGKILL of the service and of nats-server", async () => {
    const ns = `crashtimers${Date.now() % 100000}`;
    const fx = await sideEffects();
    const env = serviceEnv(ns, { WF_HOLD_WAIT_MS: "100" });
    let svc = await startServiceProcess(ENTRIES.allInOne, env, ["executor ready", "scheduler ready", "[wf] ready"]);
    let c = await client(ns);
    const waitId = await run(
      c.platform,
      `
name: long-wait
steps:
  - { name: pause, type: wait, seconds: 4 }
  - { name: after, type: code, language: bash, network: { allow: ["${fx.allow}"] }, code: "curl -s -X POST --data waited ${fx.url}/wait-done; echo; echo ok" }
`,
    );
    const retryId = await run(
      c.platform,
      `
name: long-backoff
steps:
  - name: flaky
    type: code
    language: bash
    network: { allow: ["${fx.allow}"] }
    retry: { max_attempts: 3, backoff: fixed, initial_delay: 4 }
    code: |
      [ "$(curl -s -X POST ${fx.url}/attempts)" -ge 2 ] || exit 1
      echo ok
`,
    );
    const parked = async (id: string) => {
      const v = await c.platform.store.executions.get(id);
      const st = v && Object.values(v.value.steps).find((s) => s.waitUntil || s.retryAt);
      return st && v.value.holder === null ? (st.waitUntil ?? st.retryAt)! : undefined;
    };
    const waitDue = await waitFor(() => parked(waitId), { what: "the wait to park" });
    const retryDue = await waitFor(() => parked(retryId), { what: "the backoff to park" });

    await c.stop();
    await svc.kill();
    await server.kill();
    await server.start();
    svc = await startServiceProcess(ENTRIES.allInOne, env, ["executor ready", "scheduler ready", "[wf] ready"]);
    c = await client(ns);
    try {
      const w = await waitForStatus(c.platform, waitId, undefined, 30_000);
      const r = await waitForStatus(c.platform, retryId, undefined, 30_000);
      expect(w.status).toBe("COMPLETED");
      expect(w.steps.after!.startedAt!).toBeGreaterThanOrEqual(waitDue);
      expect(fx.lines("wait-done")).toEqual(["waited"]);
      expect(r.status).toBe("COMPLETED");
      expect(r.steps.flaky!.attempts).toBe(2);
      expect(r.completedAt!).toBeGreaterThanOrEqual(retryDue);
    } finally {
      await c.stop();
      await svc.kill();
    }
  });
});

describe("executor killed inside a step test", () => {
  it("runs the step again on the next executor and nothing else: the step alone is in the record", async () => {
    const ns = `crashsteptest${Date.now() % 100000}`;
    const c = await client(ns);
    const fx = await sideEffects();
    let first: ServiceProcess | null = await startExecutorProcess(ns);
    try {
      const id = await run(c.platform, SLOW_STEP(fx), { triggerSource: "step_test", stepTest: "slow" });
      await waitFor(() => fx.lines("runs").length === 1, { what: "the slow step to start" });
      await first.kill();
      first = null;
      const second = await startExecutorProcess(ns);
      try {
        const s = await waitForStatus(c.platform, id, undefined, 30_000);
        expect(s).toMatchObject({ status: "COMPLETED", output: { done: true }, triggerSource: "step_test" });
        // Replayed from the record: the step test's one step ran again, and the steps around it never.
        expect(fx.lines("runs")).toHaveLength(2);
        expect(Object.keys(s.steps)).toEqual(["slow"]);
      } finally {
        await second.kill();
      }
    } finally {
      await c.stop();
      await first?.kill();
    }
  });
});

describe("two executor replicas", () => {
  it("never run one execution twice at the same time", async () => {
    const ns = `replicas${Date.now() % 100000}`;
    const fx = await sideEffects();
    const a = await startExecutorProcess(ns, { WF_HOLD_WAIT_MS: "50" });
    const b = await startExecutorProcess(ns, { WF_HOLD_WAIT_MS: "50" });
    const sched = await startServiceProcess(ENTRIES.scheduler, serviceEnv(ns), ["scheduler ready"]);
    const c = await client(ns);
    try {
      const yaml = `
name: replicas
steps:
  - name: work
    type: foreach
    items: [1, 2, 3]
    steps:
      - name: record
        type: code
        language: python
        network: { allow: ["${fx.allow}"] }
        input: { id: "{{ execution.id }}" }
        code: |
          import json, os, time, urllib.request
          url = "${fx.url}/" + json.loads(os.environ["WF_INPUT"])["id"]
          # The host uids of a sandbox runner are its own: they name the runner that ran the step.
          runner = open("/proc/self/uid_map").read().split()[-2]
          post = lambda what: urllib.request.urlopen(urllib.request.Request(url, data=f"{what} {time.time()} {runner}".encode(), method="POST")).read()
          post("start")
          time.sleep(0.05)
          post("end")
          print(1)
      - { name: pause, type: wait, seconds: 0.2 }
`;
      const ids = await Promise.all(Array.from({ length: 12 }, () => run(c.platform, yaml)));
      // Bounded well inside the test's time, so that a run that hangs is named with where it stands.
      const done = await Promise.all(
        ids.map((id) => waitForStatus(c.platform, id, undefined, 90_000).catch(() => undefined)),
      );
      const unfinished = await Promise.all(
        ids
          .filter((_, i) => done[i] === undefined)
          .map(async (id) => describeRun(id, (await c.platform.store.executions.get(id))?.value)),
      );
      expect(unfinished, "executions that did not end").toEqual([]);
      expect(done.map((s) => s?.status)).toEqual(ids.map(() => "COMPLETED"));
      const runners = new Set<string>();
      for (const id of ids) {
        const lines = fx.lines(id).map((l) => l.split(" "));
        // Strictly alternating start/end: no two runs of this execution's steps overlapped.
        expect(lines.map((l) => l[0])).toEqual(lines.map((_, i) => (i % 2 === 0 ? "start" : "end")));
        expect(lines).toHaveLength(6);
        for (const l of lines) runners.add(l[2]!);
      }
      expect(runners.size).toBeGreaterThanOrEqual(2);
    } finally {
      await c.stop();
      await Promise.all([a.kill(), b.kill(), sched.kill()]);
    }
  }, 150_000);
});

/** An execution's status and its steps', for a failure's message. */
function describeRun(id: string, snap: ExecutionSnapshot | undefined): string {
  if (!snap) return `${id}: no snapshot`;
  const steps = Object.entries(snap.steps).map(([path, st]) => `${path} ${st.status}`);
  return `${id}: ${snap.status} (${steps.join(", ")})`;
}
