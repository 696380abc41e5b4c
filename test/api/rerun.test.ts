import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArtifactList, ExecutionResult, RerunPlanView, RerunResponse } from "@wf/shared/api";
import { endedStatus, ZERO_USAGE, type ExecutionEvent } from "@wf/shared/execution";
import { subjects } from "@wf/shared/nats";
import { LlmTestServer } from "../ai/support/llm-server";
import { LOOPBACK_ALLOWANCE, PRICES, model, priced } from "../ai/support/ai-env";
import { waitFor, waitForStatus } from "../support/runtime";
import {
  call,
  consoleAccount,
  ended,
  startV1,
  storeWorkflow,
  useApi,
  type ApiEnv,
  type ConsoleAccount,
} from "./support";

let openai: LlmTestServer;
// Filled before the API environment starts (hooks run in the order they are registered).
const serviceEnv: Record<string, string> = { ...LOOPBACK_ALLOWANCE };
beforeAll(async () => {
  openai = await LlmTestServer.start("openai");
  serviceEnv.WF_LLM_PROVIDERS = JSON.stringify([
    { name: "rerun-openai", protocol: "openai", baseUrl: openai.baseUrl, apiKey: "sk-rerun-test-0001" },
  ]);
  serviceEnv.WF_LLM_PRICES = JSON.stringify(PRICES);
});
const api = useApi({ runtime: true, env: serviceEnv });
afterAll(async () => {
  await openai?.close();
});

/** Every event of an execution, the terminal one last. */
async function eventsOf(env: ApiEnv, executionId: string): Promise<ExecutionEvent[]> {
  const consumer = await env.platform.js.consumers.get(`${env.ns}_EVT`, {
    filter_subjects: subjects(env.ns).eventFilter({ executionId }),
  });
  const events: ExecutionEvent[] = [];
  for await (const m of await consumer.consume()) {
    const e = JSON.parse(m.string()) as ExecutionEvent;
    events.push(e);
    if (endedStatus(e.type)) break;
  }
  return events;
}

function rerun(env: ApiEnv, who: ConsoleAccount, executionId: string, body: unknown, query = "") {
  return call(env, "POST", `/api/console/executions/${executionId}/rerun${query}`, {
    body,
    headers: { cookie: who.cookie, "x-csrf-token": who.csrf },
  });
}

/** Two LLM steps, then a code step that fails on what they wrote: `fix` makes it pass. */
function llmYaml(m: string, fixed: boolean): string {
  return `
name: rerun-llm
steps:
  - { name: draft, type: llm, model: ${m}, prompt: "draft a note" }
  - { name: summary, type: llm, model: ${m}, prompt: "summarise {{ steps.draft.output }}" }
  - name: check
    type: code
    language: javascript
    input: { summary: "{{ steps.summary.output }}" }
    code: |
      ${fixed ? "return { checked: input.summary };" : 'throw new Error("the check is wrong");'}
`;
}

const ARTIFACTS_YAML = (fixed: boolean) => `
name: rerun-artifacts
steps:
  - name: write
    type: code
    language: javascript
    code: |
      artifacts.write("reports/note.txt", "written once");
      return "written";
  - name: use
    type: code
    language: javascript
    code: ${fixed ? 'return "used"' : 'throw new Error("not yet")'}
`;

const PLAIN_YAML = `
name: rerun-plain
steps:
  - { name: one, type: transform, output: 1 }
  - { name: two, type: transform, output: "{{ steps.one.output + 1 }}" }
  - name: three
    type: code
    language: javascript
    code: throw new Error("three fails")
`;

/** Three steps, each on the one before: a debugger's edit of `one` shows in what follows. */
const EDITED_YAML = `
name: rerun-edited
steps:
  - { name: one, type: transform, output: 1 }
  - { name: two, type: transform, output: "{{ steps.one.output + 1 }}" }
  - { name: three, type: transform, output: "{{ steps.two.output * 10 }}" }
`;

describe("POST /api/console/executions/{id}/rerun", () => {
  it("reruns from the failed code step with a fixed definition: no LLM call, the reused steps' usage saved to the token", async () => {
    const me = await consoleAccount(api());
    const m = model();
    openai.script(
      m,
      { text: "a draft", usage: { prompt: 1234, completion: 56 } },
      { text: "a summary", usage: { prompt: 789, completion: 12 } },
    );
    const w = await storeWorkflow(api(), me.user.id, llmYaml(m, false));
    const sourceId = await startV1(api(), me, w);
    const source = await ended(api(), me, sourceId);
    expect(source.status).toBe("FAILED");
    expect(source.error).toContain("the check is wrong");
    const firstRunUsage = {
      promptTokens: 1234 + 789,
      completionTokens: 56 + 12,
      totalTokens: 1234 + 789 + 56 + 12,
      costUsd: priced("oa", { prompt: 2023, completion: 68 }),
    };
    expect(source.usage).toEqual({ ...firstRunUsage, costUsd: expect.closeTo(firstRunUsage.costUsd, 12) });
    const requestsBefore = openai.requests(m).length;
    expect(requestsBefore).toBe(2);

    const r = await rerun(api(), me, sourceId, { fromStep: "check", definition: llmYaml(m, true) });
    expect(r.statusCode, r.body).toBe(202);
    const answer = RerunResponse.parse(r.json());
    expect(answer).toEqual({
      executionId: expect.any(String),
      rerunOf: sourceId,
      fromStep: "check",
      reusedSteps: ["draft", "summary"],
      savedUsage: source.usage,
      editedSteps: [],
    });

    const view = await ended(api(), me, answer.executionId);
    expect(view.status, view.error ?? "").toBe("COMPLETED");
    expect(openai.requests(m)).toHaveLength(requestsBefore);
    expect(view).toMatchObject({
      rerunOf: sourceId,
      savedUsage: source.usage,
      usage: ZERO_USAGE,
      triggerSource: "console",
      completedSteps: 3,
      totalSteps: 3,
    });
    for (const step of ["draft", "summary"]) {
      expect(view.stepResults[step]).toEqual({ ...source.stepResults[step], reused: true });
    }
    expect(view.stepResults.check!.reused).toBeUndefined();
    expect(view.stepResults.check!.output).toEqual({ checked: source.stepResults.summary!.output });

    const result = ExecutionResult.parse(
      (await call(api(), "GET", `/api/v1/executions/${answer.executionId}/result`, { key: me.key })).json(),
    );
    expect(result).toMatchObject({
      status: "COMPLETED",
      rerunOf: sourceId,
      savedUsage: source.usage,
      usage: ZERO_USAGE,
    });
    // The source has neither field: it is no rerun.
    expect(source).not.toHaveProperty("rerunOf");
    expect(source).not.toHaveProperty("savedUsage");

    // The edited definition is the workflow's next version, and the one the rerun ran.
    const stored = await api().platform.store.workflows.get(w.id);
    expect(stored?.value).toMatchObject({ version: 2, yaml: llmYaml(m, true) });
    const snap = await waitForStatus(api().platform, answer.executionId);
    expect(snap).toMatchObject({ workflowVersion: 2, rerunOf: sourceId, rerunFrom: "check" });
    const events = await eventsOf(api(), answer.executionId);
    expect(events.filter((e) => e.type === "step_reused").map((e) => [e.step, e.data.rerunOf])).toEqual([
      ["draft", sourceId],
      ["summary", sourceId],
    ]);
    expect(events.filter((e) => e.type === "step_started").map((e) => e.step)).toEqual(["check"]);
  });

  it("lists and serves a reused step's artifacts from the new execution: the same stored file", async () => {
    const me = await consoleAccount(api());
    const w = await storeWorkflow(api(), me.user.id, ARTIFACTS_YAML(false));
    const sourceId = await startV1(api(), me, w);
    expect((await ended(api(), me, sourceId)).status).toBe("FAILED");
    const r = await rerun(api(), me, sourceId, { fromStep: "use", definition: ARTIFACTS_YAML(true) });
    expect(r.statusCode, r.body).toBe(202);
    const { executionId } = RerunResponse.parse(r.json());
    const view = await ended(api(), me, executionId);
    expect(view.status, view.error ?? "").toBe("COMPLETED");

    const list = (id: string) =>
      call(api(), "GET", `/api/v1/executions/${id}/artifacts`, { key: me.key }).then((res) =>
        ArtifactList.parse(res.json()),
      );
    const [original] = (await list(sourceId)).artifacts;
    const listed = await list(executionId);
    expect(listed.total).toBe(1);
    const [copy] = listed.artifacts;
    expect(copy).toMatchObject({
      name: "note.txt",
      path: "reports/note.txt",
      stepName: "write",
      storageKey: original!.storageKey,
      size: original!.size,
    });
    expect(copy!.id).not.toBe(original!.id);
    const one = await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/${copy!.id}`, { key: me.key });
    expect(one.statusCode).toBe(200);
    const download = await call(api(), "GET", copy!.downloadUrl);
    expect(download.statusCode).toBe(200);
    expect(download.body).toBe("written once");
    const snap = await waitForStatus(api().platform, executionId);
    expect(snap.steps.write).toMatchObject({ reused: true, artifacts: [copy!.id] });
  });

  it("refuses a running execution (409 with its status), an unknown step (400 naming the steps) and another owner (404)", async () => {
    const me = await consoleAccount(api());
    const w = await storeWorkflow(
      api(),
      me.user.id,
      "name: slow\nsteps:\n  - { name: pause, type: wait, seconds: 600 }\n  - { name: after, type: transform, output: 1 }\n",
    );
    const runningId = await startV1(api(), me, w);
    await waitForStatus(api().platform, runningId, ["RUNNING"]);
    const running = await rerun(api(), me, runningId, { fromStep: "after" });
    expect(running.statusCode).toBe(409);
    expect(running.json()).toMatchObject({
      code: "CONFLICT",
      status: "RUNNING",
      error: expect.stringContaining("only a finished execution"),
    });

    const plain = await storeWorkflow(api(), me.user.id, PLAIN_YAML);
    const failedId = await startV1(api(), me, plain);
    expect((await ended(api(), me, failedId)).status).toBe("FAILED");
    const unknown = await rerun(api(), me, failedId, { fromStep: "four" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      code: "VALIDATION_FAILED",
      details: [{ in: "body", field: "fromStep", message: expect.stringContaining("one, two, three") }],
    });

    const stranger = await consoleAccount(api());
    const hidden = await rerun(api(), stranger, failedId, { fromStep: "three" });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toMatchObject({ code: "NOT_FOUND" });
    await api().platform.store.workflows.update(
      { ...plain, sharedWith: { [stranger.user.id]: "viewer" } },
      (await api().platform.store.workflows.get(plain.id))!.version,
    );
    const viewer = await rerun(api(), stranger, failedId, { fromStep: "three" });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toMatchObject({ code: "FORBIDDEN" });
    const noCsrf = await call(api(), "POST", `/api/console/executions/${failedId}/rerun`, {
      body: { fromStep: "three" },
      headers: { cookie: me.cookie },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ code: "CSRF_FAILED" });
  });

  it("refuses a definition that changes a step before fromStep (409 naming it); a dry run answers the plan and starts nothing", async () => {
    const me = await consoleAccount(api());
    const w = await storeWorkflow(api(), me.user.id, PLAIN_YAML);
    const sourceId = await startV1(api(), me, w);
    expect((await ended(api(), me, sourceId)).status).toBe("FAILED");

    const changed = PLAIN_YAML.replace("output: 1 }", "output: 10 }").replace(
      'throw new Error("three fails")',
      "return 3",
    );
    const refused = await rerun(api(), me, sourceId, { fromStep: "three", definition: changed });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: "CONFLICT",
      step: "one",
      error: expect.stringContaining("step `one`"),
    });
    const invalid = await rerun(api(), me, sourceId, { fromStep: "three", definition: "name: broken\nsteps: 3\n" });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({
      code: "WORKFLOW_INVALID",
      details: [expect.objectContaining({ field: "definition" })],
    });

    const executionsBefore = (await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 50 }))
      .total;
    const dry = await rerun(
      api(),
      me,
      sourceId,
      { fromStep: "three", definition: PLAIN_YAML.replace('throw new Error("three fails")', "return 3") },
      "?dryRun=true",
    );
    expect(dry.statusCode, dry.body).toBe(200);
    expect(RerunPlanView.parse(dry.json())).toEqual({
      rerunOf: sourceId,
      fromStep: "three",
      reusedSteps: ["one", "two"],
      rerunSteps: ["three"],
      savedUsage: ZERO_USAGE,
      editedSteps: [],
    });
    expect((await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 50 })).total).toBe(
      executionsBefore,
    );
    expect((await api().platform.store.workflows.get(w.id))?.value.version).toBe(1);

    // Without a definition the source's own runs again, with the source's variables.
    const again = await rerun(api(), me, sourceId, { fromStep: "two" });
    expect(again.statusCode, again.body).toBe(202);
    const view = await ended(api(), me, RerunResponse.parse(again.json()).executionId);
    expect(view).toMatchObject({
      status: "FAILED",
      rerunOf: sourceId,
      stepResults: { one: { reused: true, output: 1 }, two: { output: 2 } },
    });
    expect(view.stepResults.two).not.toHaveProperty("reused");
  });

  it("refuses an edited definition whose code step's timeout is over the owner's plan's, as a save is: nothing stored or run", async () => {
    const me = await consoleAccount(api());
    const w = await storeWorkflow(api(), me.user.id, PLAIN_YAML);
    const sourceId = await startV1(api(), me, w);
    expect((await ended(api(), me, sourceId)).status).toBe("FAILED");
    const withTimeout = (seconds: number) =>
      PLAIN_YAML.replace("language: javascript\n", `language: javascript\n    timeout: ${seconds}\n`);
    const executions = async () =>
      (await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 50 })).total;
    const executionsBefore = await executions();

    const overBound = {
      code: "WORKFLOW_INVALID",
      details: [
        {
          in: "body",
          field: "definition",
          message:
            "9:14 steps[2].timeout: step `three` asks for a timeout of 3600 s, over the 1800 s (30 min) the pro plan " +
            "allows a code step: lower it, or move the account to a larger plan",
        },
      ],
    };
    for (const query of ["", "?dryRun=true"]) {
      const refused = await rerun(api(), me, sourceId, { fromStep: "three", definition: withTimeout(3600) }, query);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject(overBound);
    }
    expect(await executions()).toBe(executionsBefore);
    expect((await api().platform.store.workflows.get(w.id))?.value.version).toBe(1);
    // At the plan's bound it is taken.
    const atBound = await rerun(
      api(),
      me,
      sourceId,
      { fromStep: "three", definition: withTimeout(1800) },
      "?dryRun=true",
    );
    expect(atBound.statusCode, atBound.body).toBe(200);
  });

  it("reuses an output a debugger's set edited as edited, and says so in the dry run, the answer and the reused step", async () => {
    const me = await consoleAccount(api());
    const w = await storeWorkflow(api(), me.user.id, EDITED_YAML);
    const session = { cookie: me.cookie, "x-csrf-token": me.csrf };
    const consoleCall = (method: "GET" | "POST", url: string, body?: unknown) =>
      call(api(), method, url, { headers: session, ...(body === undefined ? {} : { body }) });
    const started = await consoleCall("POST", `/api/console/workflows/${w.id}/executions`, {
      debug: { breakpoints: [{ type: "after_step", step: "one" }] },
    });
    expect(started.statusCode, started.body).toBe(202);
    const sourceId = (started.json() as { executionId: string }).executionId;
    const view = () => consoleCall("GET", `/api/console/executions/${sourceId}`).then((r) => r.json());
    const pause = await waitFor(async () => {
      const v = await view();
      return v.status === "PAUSED" ? (v.pause as { id: string }) : undefined;
    });
    const set = await consoleCall("POST", `/api/console/executions/${sourceId}/debug/set`, {
      pauseId: pause.id,
      output: 5,
    });
    expect(set.statusCode, set.body).toBe(202);
    await waitFor(async () => ((await view()).edits.length === 1 ? true : undefined));
    const cont = await consoleCall("POST", `/api/console/executions/${sourceId}/debug/continue`, { pauseId: pause.id });
    expect(cont.statusCode, cont.body).toBe(202);
    const source = await ended(api(), me, sourceId);
    // The later steps saw the edit; the record keeps what the step gave before it.
    expect(source).toMatchObject({
      status: "COMPLETED",
      stepResults: { one: { output: 5 }, two: { output: 6 }, three: { output: 60 } },
    });
    expect((await view()).steps.one.edits).toMatchObject([{ field: "output", before: 1, after: 5 }]);

    const dry = await rerun(api(), me, sourceId, { fromStep: "three" }, "?dryRun=true");
    expect(dry.statusCode, dry.body).toBe(200);
    expect(RerunPlanView.parse(dry.json())).toMatchObject({ reusedSteps: ["one", "two"], editedSteps: ["one"] });
    const r = await rerun(api(), me, sourceId, { fromStep: "three" });
    expect(r.statusCode, r.body).toBe(202);
    const answer = RerunResponse.parse(r.json());
    expect(answer.editedSteps).toEqual(["one"]);
    const done = await ended(api(), me, answer.executionId);
    // The rerun reproduces its source from the edit, and each reused step says whether it stands on one.
    expect(done).toMatchObject({ status: "COMPLETED", stepResults: { three: { output: 60 } } });
    expect(done.stepResults.one).toMatchObject({ output: 5, reused: true, edited: true });
    expect(done.stepResults.two).toMatchObject({ output: 6, reused: true });
    expect(done.stepResults.two).not.toHaveProperty("edited");
    const rerunView = await consoleCall("GET", `/api/console/executions/${answer.executionId}`).then((v) => v.json());
    expect([rerunView.steps.one.edited, rerunView.steps.two.edited, rerunView.steps.three.edited]).toEqual([
      true,
      false,
      false,
    ]);
    const reusedEvents = (await eventsOf(api(), answer.executionId)).filter((e) => e.type === "step_reused");
    expect(reusedEvents.map((e) => [e.step, e.data.edited])).toEqual([
      ["one", true],
      ["two", undefined],
    ]);
  });

  it("reruns a stored version named by `version`, the latest saved one: nothing new is stored, and the execution says the version that ran", async () => {
    const me = await consoleAccount(api());
    const w = await storeWorkflow(api(), me.user.id, PLAIN_YAML);
    const sourceId = await startV1(api(), me, w);
    expect((await ended(api(), me, sourceId)).status).toBe("FAILED");
    // Saved after the run, as the console's editor saves: version 2 mends `three`.
    const save = async (yaml: string) => {
      const r = await call(api(), "PUT", `/api/console/workflows/${w.id}`, {
        body: { yaml },
        headers: { cookie: me.cookie, "x-csrf-token": me.csrf },
      });
      expect(r.statusCode, r.body).toBe(200);
    };
    const mended = PLAIN_YAML.replace('throw new Error("three fails")', "return 3");
    await save(mended);

    const dry = await rerun(api(), me, sourceId, { fromStep: "three", version: 2 }, "?dryRun=true");
    expect(dry.statusCode, dry.body).toBe(200);
    expect(RerunPlanView.parse(dry.json())).toMatchObject({ reusedSteps: ["one", "two"], rerunSteps: ["three"] });
    const r = await rerun(api(), me, sourceId, { fromStep: "three", version: 2 });
    expect(r.statusCode, r.body).toBe(202);
    const { executionId } = RerunResponse.parse(r.json());
    const view = await ended(api(), me, executionId);
    expect(view).toMatchObject({
      status: "COMPLETED",
      stepResults: { one: { reused: true, output: 1 }, three: { output: 3 } },
    });
    expect((await api().platform.store.workflows.get(w.id))?.value.version).toBe(2);
    const shown = await call(api(), "GET", `/api/console/executions/${executionId}`, {
      headers: { cookie: me.cookie },
    });
    expect(shown.json()).toMatchObject({ workflowVersion: 2, rerunOf: sourceId });
    const source = await call(api(), "GET", `/api/console/executions/${sourceId}`, {
      headers: { cookie: me.cookie },
    });
    expect(source.json()).toMatchObject({ workflowVersion: 1 });

    // Version 3 changes `one`, a step before `three`: refused naming it, as an edited definition is.
    await save(mended.replace("output: 1 }", "output: 10 }"));
    const changed = await rerun(api(), me, sourceId, { fromStep: "three", version: 3 }, "?dryRun=true");
    expect(changed.statusCode).toBe(409);
    expect(changed.json()).toMatchObject({ code: "CONFLICT", step: "one" });
    const unkept = await rerun(api(), me, sourceId, { fromStep: "three", version: 9 }, "?dryRun=true");
    expect(unkept.statusCode).toBe(400);
    expect(unkept.json()).toMatchObject({
      code: "VALIDATION_FAILED",
      details: [{ in: "body", field: "version", message: expect.stringContaining("no version 9") }],
    });
    const both = await rerun(
      api(),
      me,
      sourceId,
      { fromStep: "three", version: 2, definition: mended },
      "?dryRun=true",
    );
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({
      code: "VALIDATION_FAILED",
      details: [expect.objectContaining({ field: "version" })],
    });
  });
});
