import { describe, expect, it } from "vitest";
import { createApiKey } from "@wf/shared/auth";
import { ExecutionSnapshot, newId } from "@wf/shared/execution";
import { waitFor } from "@wf/testing";
import { SIMPLE_YAML, storeWorkflow } from "../api/support";
import { consoleCall, consoleSession, statusAndCode, useConsole, type Answer } from "./support";

const env = useConsole();

const LOOP_YAML = `
name: looped
variables:
  items: { type: array, default: [1, 2] }
steps:
  - name: each
    type: foreach
    items: "{{ vars.items }}"
    steps:
      - name: double
        type: transform
        output: "{{ item * 2 }}"
  - name: sum
    type: transform
    output: done
`;

const start = (
  session: Parameters<typeof consoleCall>[1],
  workflowId: string,
  body: unknown = {},
  csrf?: boolean | string,
) =>
  consoleCall(env(), session, "POST", `/api/console/workflows/${workflowId}/executions`, {
    body,
    ...(csrf === undefined ? {} : { csrf }),
  });

describe("POST /api/console/workflows/{id}/executions", () => {
  it("runs a stored workflow for a free account (triggerSource console); GET shows it until COMPLETED, with its steps and definition", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, SIMPLE_YAML);
    const before = Date.now();
    const started = await start(me, wf.id, { inputs: { who: "Ada" } });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      executionId: expect.any(String),
      status: "PENDING",
      workflowId: wf.id,
      startedAt: expect.any(Number),
    });
    expect(started.body.startedAt).toBeGreaterThanOrEqual(before);
    const id = started.body.executionId as string;
    const done = await waitFor(
      async () => {
        const r = await consoleCall(env(), me, "GET", `/api/console/executions/${id}`, { csrf: false });
        expect(r.status).toBe(200);
        return r.body.status === "COMPLETED" ? r.body : undefined;
      },
      { timeoutMs: 20_000, what: `execution ${id} to complete` },
    );
    expect(done).toMatchObject({
      id,
      workflowId: wf.id,
      triggerSource: "console",
      completedSteps: 1,
      totalSteps: 1,
      error: null,
      debug: false,
      pause: null,
      breakpoints: [],
      edits: [],
      rerunOf: null,
      savedUsage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
      usage: { totalTokens: 0, costUsd: 0 },
      definition: { name: "simple", steps: [expect.objectContaining({ name: "greet", type: "transform" })] },
      // What the page shows of the run as a whole: the version that ran, what it was given (defaults applied), what it
      // made.
      workflowVersion: 1,
      variables: { who: "Ada", n: 1 },
      output: { text: "hello Ada", n: 1 },
    });
    expect(done.steps).toEqual({
      greet: {
        status: "COMPLETED",
        output: { text: "hello Ada", n: 1 },
        error: null,
        attempts: 1,
        duration: expect.any(Number),
        startedAt: expect.any(Number),
        completedAt: expect.any(Number),
        usage: null,
        reused: false,
        edited: false,
        pinned: false,
        edits: [],
        artifacts: [],
        approvalId: null,
        childExecutionId: null,
      },
    });
  });

  it("carries the debug request in the start command: the execution is a debug run with its breakpoints, ids assigned", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, LOOP_YAML);
    const breakpoints = [
      { type: "before_step", step: "sum" },
      { id: "each-1", type: "foreach_item", step: "each", index: 1 },
      { type: "after_step", step: "each[*].double", enabled: false },
    ];
    const started = await start(me, wf.id, { debug: { breakpoints, idleTimeout: 60 } });
    expect(started.status).toBe(202);
    const r = await consoleCall(env(), me, "GET", `/api/console/executions/${started.body.executionId as string}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ debug: true, triggerSource: "console" });
    expect(r.body.breakpoints).toEqual([
      { id: "bp1", type: "before_step", step: "sum", enabled: true },
      { id: "each-1", type: "foreach_item", step: "each", index: 1, enabled: true },
      { id: "bp2", type: "after_step", step: "each[*].double", enabled: false },
    ]);
    const stored = await env().platform.store.executions.get(started.body.executionId as string);
    expect(stored?.value.debug).toMatchObject({ idleTimeout: 60 });
  });

  it("400 with details for bad inputs and for breakpoints the workflow cannot hit; nothing is started", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, LOOP_YAML);
    const fields = (r: Answer) => (r.body.details as { in: string; field: string }[]).map((d) => `${d.in} ${d.field}`);

    const inputs = await start(me, wf.id, { inputs: { items: "not a list", nope: 1 } });
    expect(statusAndCode(inputs)).toEqual([400, "VALIDATION_FAILED"]);
    expect(fields(inputs).sort()).toEqual(["body inputs.items", "body inputs.nope"]);

    const semantic = await start(me, wf.id, {
      debug: {
        breakpoints: [
          { type: "before_step", step: "missing" },
          { type: "conditional", expression: "vars.items[" },
          { id: "same", type: "after_step", step: "each[0].double" },
          { id: "same", type: "foreach_item", step: "sum" },
          { type: "before_step", step: "each.double" },
          { type: "watch", expression: "$count(vars.items)" },
        ],
      },
    });
    expect(statusAndCode(semantic)).toEqual([400, "VALIDATION_FAILED"]);
    expect(fields(semantic).sort()).toEqual([
      "body debug.breakpoints[0].step",
      "body debug.breakpoints[1].expression",
      "body debug.breakpoints[3].id",
      "body debug.breakpoints[3].step",
      "body debug.breakpoints[4].step",
    ]);

    const shape = await start(me, wf.id, {
      debug: { breakpoints: [{ type: "sometimes", step: "sum" }], idleTimeout: 0 },
      enableMonitoring: "yes",
    });
    expect(statusAndCode(shape)).toEqual([400, "VALIDATION_FAILED"]);
    expect(fields(shape)).toEqual(
      expect.arrayContaining(["body debug.breakpoints[0].type", "body debug.idleTimeout", "body enableMonitoring"]),
    );

    const { total } = await env().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 10 });
    expect(total).toBe(0);
  });

  it("starts only the version the caller shows when it sends one: another is a 409 naming the stored version", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, LOOP_YAML);
    const saved = await consoleCall(env(), me, "PUT", `/api/console/workflows/${wf.id}`, {
      body: { yaml: LOOP_YAML.replace("output: done", "output: finished"), baseVersion: 1 },
    });
    expect(saved.status).toBe(200);

    const behind = await start(me, wf.id, { version: 1 });
    expect(statusAndCode(behind)).toEqual([409, "CONFLICT"]);
    expect(behind.body).toMatchObject({
      currentVersion: 2,
      error: `workflow ${wf.id} is at version 2, not 1: someone saved it since; reload version 2 and run that`,
    });
    expect((await env().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 10 })).total).toBe(0);
    expect((await start(me, wf.id, { version: 2 })).status).toBe(202);
    expect((await start(me, wf.id)).status).toBe(202);
  });

  it("counts a user's console runs under the plan's windows: the 61st in a minute on Free is a 429", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, SIMPLE_YAML);
    // The edge's clock pinned early in a minute: the 61 starts cannot straddle two.
    env().clock.now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
    try {
      const statuses = await Promise.all(Array.from({ length: 60 }, () => start(me, wf.id).then((r) => r.status)));
      expect(statuses.every((s) => s === 202)).toBe(true);
      const limited = await start(me, wf.id);
      expect(statusAndCode(limited)).toEqual([429, "RATE_LIMITED"]);
      expect(limited.body).toMatchObject({ window: "minute", limit: 60 });
      expect(limited.body.error).toBe("rate limit exceeded: 60 console runs per minute (plan free)");
      expect((await env().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 100 })).total).toBe(60);
      // Another user's runs are their own.
      const other = await consoleSession(env(), "free");
      expect((await start(other, (await storeWorkflow(env(), other.user.id, SIMPLE_YAML)).id)).status).toBe(202);
    } finally {
      env().clock.now = null;
    }
  });

  it("who may start: owner and editor 202, viewer 403 FORBIDDEN, anyone else 404; and who may read the execution", async () => {
    const [owner, editor, viewer, stranger] = await Promise.all([
      consoleSession(env(), "pro"),
      consoleSession(env(), "free"),
      consoleSession(env(), "free"),
      consoleSession(env(), "free"),
    ]);
    const wf = await storeWorkflow(env(), owner.user.id, SIMPLE_YAML, {
      sharedWith: { [editor.user.id]: "editor", [viewer.user.id]: "viewer" },
    });
    expect((await start(owner, wf.id)).status).toBe(202);
    const byEditor = await start(editor, wf.id);
    expect(byEditor.status).toBe(202);
    expect(statusAndCode(await start(viewer, wf.id))).toEqual([403, "FORBIDDEN"]);
    expect(statusAndCode(await start(stranger, wf.id))).toEqual([404, "NOT_FOUND"]);
    expect(statusAndCode(await start(stranger, "no-such-workflow"))).toEqual([404, "NOT_FOUND"]);

    const path = `/api/console/executions/${byEditor.body.executionId as string}`;
    for (const reader of [owner, editor, viewer])
      expect((await consoleCall(env(), reader, "GET", path)).status).toBe(200);
    expect(statusAndCode(await consoleCall(env(), stranger, "GET", path))).toEqual([404, "NOT_FOUND"]);
    expect(statusAndCode(await consoleCall(env(), owner, "GET", "/api/console/executions/no-such-execution"))).toEqual([
      404,
      "NOT_FOUND",
    ]);
  });

  it("the session and CSRF checks: no session 401, an API key is no session, no or a wrong X-CSRF-Token 403 CSRF_FAILED", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, SIMPLE_YAML);
    const { key } = await createApiKey(env().platform.store, {
      ownerId: me.user.id,
      scopes: ["WORKFLOW_EXECUTE", "EXECUTION_READ"],
    });
    expect(statusAndCode(await start(null, wf.id))).toEqual([401, "SESSION_REQUIRED"]);
    const withKey = await consoleCall(env(), null, "POST", `/api/console/workflows/${wf.id}/executions`, {
      body: {},
      headers: { authorization: `Bearer ${key}` },
    });
    expect(statusAndCode(withKey)).toEqual([401, "SESSION_REQUIRED"]);
    expect(statusAndCode(await start(me, wf.id, {}, false))).toEqual([403, "CSRF_FAILED"]);
    expect(statusAndCode(await start(me, wf.id, {}, "forged"))).toEqual([403, "CSRF_FAILED"]);
    expect(statusAndCode(await consoleCall(env(), null, "GET", "/api/console/executions/x"))).toEqual([
      401,
      "SESSION_REQUIRED",
    ]);
    expect(statusAndCode(await start(me, wf.id, { inputs: { who: "x".repeat(1024 * 1024) } }))).toEqual([
      413,
      "PAYLOAD_TOO_LARGE",
    ]);
    const { total } = await env().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 10 });
    expect(total).toBe(0);
  });
});

describe("GET /api/console/executions/{id}", () => {
  it("says PAUSED while a debug run waits at a breakpoint, with the pause; the v1 view keeps RUNNING", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, SIMPLE_YAML);
    const now = Date.now();
    const pause = {
      id: "pause-1",
      breakpointId: "bp1",
      type: "before_step",
      stepPath: "greet",
      phase: "before",
      pausedAt: now,
      context: { vars: { who: "world", n: 1 }, outputs: {}, input: { text: "hello world" } },
    };
    const edit = {
      pauseId: "pause-0",
      stepPath: "greet",
      by: me.user.id,
      at: now,
      field: "vars",
      before: { n: 1 },
      after: { n: 2 },
    };
    // Written as the debugger leaves a paused run: no command is queued, so no executor touches it.
    const snapshot = ExecutionSnapshot.parse({
      id: newId(),
      workflowId: wf.id,
      workflowName: wf.name,
      ownerId: me.user.id,
      triggerSource: "console",
      status: "RUNNING",
      currentStep: "greet",
      totalSteps: 1,
      createdAt: now,
      startedAt: now,
      vars: { who: "world", n: 1 },
      definition: wf.definition,
      steps: { greet: { name: "greet", type: "transform", status: "PENDING" } },
      debug: {
        breakpoints: [{ id: "bp1", type: "before_step", step: "greet" }],
        idleTimeout: 3600,
        pause,
        edits: [edit],
      },
    });
    await env().platform.store.executions.create(snapshot);

    const r = await consoleCall(env(), me, "GET", `/api/console/executions/${snapshot.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "PAUSED",
      debug: true,
      pause,
      edits: [edit],
      breakpoints: [{ id: "bp1", type: "before_step", step: "greet", enabled: true }],
    });
    expect(r.body.steps).toEqual({
      greet: expect.objectContaining({ status: "PENDING", output: null, reused: false, artifacts: [] }),
    });

    const { key } = await createApiKey(env().platform.store, { ownerId: me.user.id, scopes: ["EXECUTION_READ"] });
    const v1 = await fetch(`${env().base}/api/v1/executions/${snapshot.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(((await v1.json()) as { status: string }).status).toBe("RUNNING");
  });
});

describe("debug commands: POST /api/console/executions/{id}/debug/{command}, PUT …/debug/breakpoints", () => {
  const TWO_STEPS = `
name: two
variables:
  who: { type: string, default: world }
steps:
  - name: greet
    type: transform
    output: "hello {{ vars.who }}"
  - name: shout
    type: transform
    output: "{{ $uppercase(steps.greet.output) }}"
`;

  const view = async (session: Parameters<typeof consoleCall>[1], id: string) =>
    (await consoleCall(env(), session, "GET", `/api/console/executions/${id}`)).body;
  const paused = (session: Parameters<typeof consoleCall>[1], id: string, pauseNot?: string) =>
    waitFor(
      async () => {
        const v = await view(session, id);
        const pause = v.pause as { id: string; stepPath: string } | null;
        return v.status === "PAUSED" && pause && pause.id !== pauseNot ? pause : undefined;
      },
      { timeoutMs: 20_000, what: `execution ${id} to pause` },
    );
  const command = (
    session: Parameters<typeof consoleCall>[1],
    id: string,
    name: string,
    body: unknown = {},
    csrf?: boolean,
  ) =>
    consoleCall(env(), session, "POST", `/api/console/executions/${id}/debug/${name}`, {
      body,
      ...(csrf === undefined ? {} : { csrf }),
    });

  it("a debug run pauses at its breakpoint; set, then continue with the pause's id, and it completes with the edit recorded", async () => {
    const [me, viewer] = await Promise.all([consoleSession(env(), "free"), consoleSession(env(), "free")]);
    const wf = await storeWorkflow(env(), me.user.id, TWO_STEPS, { sharedWith: { [viewer.user.id]: "viewer" } });
    const started = await start(me, wf.id, { debug: { breakpoints: [{ type: "before_step", step: "shout" }] } });
    const id = started.body.executionId as string;
    const pause = await paused(me, id);
    expect(pause.stepPath).toBe("shout");

    expect(statusAndCode(await command(viewer, id, "continue", { pauseId: pause.id }))).toEqual([403, "FORBIDDEN"]);
    expect(statusAndCode(await command(me, id, "continue", { pauseId: pause.id }, false))).toEqual([
      403,
      "CSRF_FAILED",
    ]);
    const stale = await command(me, id, "continue", { pauseId: "another-pause" });
    expect(statusAndCode(stale)).toEqual([409, "CONFLICT"]);
    expect(stale.body.reason).toBe("stale");
    const retry = await command(me, id, "retry", { pauseId: pause.id });
    expect([retry.status, retry.body.reason]).toEqual([409, "invalid"]);
    expect(statusAndCode(await command(me, id, "jump", {}))).toEqual([400, "VALIDATION_FAILED"]);

    const set = await command(me, id, "set", { pauseId: pause.id, vars: { who: "Ada" } });
    expect(set.status).toBe(202);
    expect(set.body).toEqual({ executionId: id, command: "set", pauseId: pause.id });
    await waitFor(async () => ((await view(me, id)).edits as unknown[]).length === 1 || undefined, {
      what: "the edit to be recorded",
    });
    const go = await command(me, id, "continue", { pauseId: pause.id });
    expect(go.status).toBe(202);
    const done = await waitFor(
      async () => {
        const v = await view(me, id);
        return v.status === "COMPLETED" ? v : undefined;
      },
      { timeoutMs: 20_000, what: `execution ${id} to complete` },
    );
    expect(done.pause).toBeNull();
    expect(done.edits).toEqual([
      expect.objectContaining({ pauseId: pause.id, field: "vars", by: me.user.id, after: { who: "Ada" } }),
    ]);
    const again = await command(me, id, "continue", {});
    expect([again.status, again.body.reason]).toEqual([409, "no_pause"]);
  });

  it("of two commands racing for one pause exactly one wins; the other is a 409 conflict", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, TWO_STEPS);
    const id = (await start(me, wf.id, { debug: { breakpoints: [{ type: "before_step", step: "greet" }] } })).body
      .executionId as string;
    const pause = await paused(me, id);
    const answers = await Promise.all([
      command(me, id, "continue", { pauseId: pause.id }),
      command(me, id, "step", { pauseId: pause.id }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    // The loser finds the pause claimed by the winner, or already over if the winner was carried out first.
    expect(["conflict", "no_pause"]).toContain(answers.find((a) => a.status === 409)!.body.reason);
  });

  it("breakpoints are replaced while the run waits; checked against its workflow; refused when stale, for other runs and ended ones", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, TWO_STEPS);
    const id = (await start(me, wf.id, { debug: { breakpoints: [{ type: "before_step", step: "greet" }] } })).body
      .executionId as string;
    const pause = await paused(me, id);
    const put = (executionId: string, body: unknown, csrf?: boolean) =>
      consoleCall(env(), me, "PUT", `/api/console/executions/${executionId}/debug/breakpoints`, {
        body,
        ...(csrf === undefined ? {} : { csrf }),
      });

    expect(statusAndCode(await put(id, { breakpoints: [], revision: 0 }, false))).toEqual([403, "CSRF_FAILED"]);
    const bad = await put(id, { breakpoints: [{ type: "after_step", step: "nowhere" }], revision: 0 });
    expect(statusAndCode(bad)).toEqual([400, "VALIDATION_FAILED"]);
    expect(bad.body.details).toEqual([
      { in: "body", field: "breakpoints[0].step", message: expect.stringContaining("nowhere") },
    ]);
    expect(statusAndCode(await put(id, {}))).toEqual([400, "VALIDATION_FAILED"]);
    expect(statusAndCode(await put(id, { breakpoints: [] }))).toEqual([400, "VALIDATION_FAILED"]);

    expect((await view(me, id)).breakpointsRevision).toBe(0);
    const replaced = await put(id, { breakpoints: [{ type: "after_step", step: "shout" }], revision: 0 });
    expect(replaced.status).toBe(202);
    expect(replaced.body).toEqual({
      executionId: id,
      // bp1 (before greet) counted the pause's hit: the new breakpoint is another.
      breakpoints: [{ id: "bp2", type: "after_step", step: "shout", enabled: true }],
      revision: 1,
    });
    // Made on the list before that change (another tab's): refused, for the console to make it again on the new one.
    const stale = await put(id, { breakpoints: [], revision: 0 });
    expect([...statusAndCode(stale), stale.body.reason]).toEqual([409, "CONFLICT", "stale"]);
    expect((await view(me, id)).breakpointsRevision).toBe(1);
    await waitFor(
      async () => ((await view(me, id)).breakpoints as { type: string }[])[0]?.type === "after_step" || undefined,
      {
        what: "the new breakpoints",
      },
    );
    expect((await command(me, id, "continue", { pauseId: pause.id })).status).toBe(202);
    const next = await paused(me, id, pause.id);
    expect(next.stepPath).toBe("shout");
    expect((await command(me, id, "abort", { pauseId: next.id })).status).toBe(202);
    await waitFor(async () => (await view(me, id)).status === "CANCELLED" || undefined, {
      what: "the aborted run to end",
    });
    expect((await put(id, { breakpoints: [], revision: 1 })).body.reason).toBe("ended");

    const plain = (await start(me, wf.id)).body.executionId as string;
    expect((await put(plain, { breakpoints: [], revision: 0 })).body.reason).toBe("not_debug");
    expect((await command(me, plain, "continue")).body.reason).toBe("not_debug");
  });
});
