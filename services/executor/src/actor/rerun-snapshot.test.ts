import { describe, expect, it } from "vitest";
import { AlreadyExistsError } from "@wf/shared/errors";
import { checkStart, ExecutionSnapshot, firstSnapshot, type ExecutionEvent } from "@wf/shared/execution";
import type { ArtifactRecord } from "@wf/shared/store";
import { parseWorkflow, type Workflow } from "@wf/shared/workflow";
import { reuseSourceSteps, type RerunStore } from "./rerun-snapshot";

const YAML = `
name: seed
steps:
  - { name: ask, type: llm, model: m-1, prompt: hi }
  - { name: write, type: code, language: javascript, code: "return 1" }
  - { name: last, type: code, language: javascript, code: "return 2" }
`;

function workflow(): Workflow {
  const parsed = parseWorkflow(YAML);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.workflow;
}

const askUsage = { promptTokens: 30, completionTokens: 5, totalTokens: 35, costUsd: 0.25 };

function source(): ExecutionSnapshot {
  const state = { error: null, attempts: 1, startedAt: 1, completedAt: 2, duration: 1 };
  return ExecutionSnapshot.parse({
    id: "src",
    workflowId: "w",
    workflowName: "seed",
    ownerId: "u",
    triggerSource: "console",
    status: "FAILED",
    totalSteps: 3,
    createdAt: 1,
    vars: {},
    definition: workflow(),
    usage: askUsage,
    steps: {
      ask: { name: "ask", type: "llm", status: "COMPLETED", output: "hello", usage: askUsage, ...state },
      write: { name: "write", type: "code", status: "COMPLETED", output: 1, artifacts: ["a1"], ...state },
      last: { name: "last", type: "code", status: "FAILED", ...state, error: "boom" },
    },
  });
}

const artifact: ArtifactRecord = {
  id: "a1",
  executionId: "src",
  ownerId: "u",
  stepName: "write",
  name: "n.txt",
  path: "n.txt",
  storageKey: "src/a1",
  size: 3,
  contentType: "text/plain",
  previewable: true,
  createdAt: 5,
};

/** The store as the rerun reads it: the source and its artifact, and the artifact records it creates. */
function fakeStore(src: ExecutionSnapshot | null) {
  const created = new Map<string, ArtifactRecord>();
  const store: RerunStore = {
    executions: { get: async (id) => (src && id === src.id ? { value: structuredClone(src), version: 1 } : null) },
    artifacts: {
      get: async (id) => (id === artifact.id ? { value: artifact, version: 1 } : null),
      create: async (record) => {
        if (created.has(record.id)) throw new AlreadyExistsError(record.id);
        created.set(record.id, record);
        return 1;
      },
    },
  };
  return { store, created };
}

function rerunSnapshot(fromStep: string): {
  snap: ExecutionSnapshot;
  events: ExecutionEvent[];
  emit: (type: string, step?: string, data?: Record<string, unknown>) => void;
} {
  const cmd = {
    executionId: "new",
    workflow: { id: "w", name: "seed", ownerId: "u", version: 1, definition: workflow() },
    pending: false,
    inputs: {},
    triggerSource: "console" as const,
    enableMonitoring: false,
    parent: null,
    requestedAt: 10,
    rerun: { of: "src", fromStep },
  };
  const snap = firstSnapshot(
    cmd,
    checkStart(cmd.workflow.definition, {}, cmd.workflow.ownerId),
    "RUNNING",
    { actor: "a", seq: 1, since: 10 },
    10,
  );
  const events: ExecutionEvent[] = [];
  const emit = (type: string, step?: string, data: Record<string, unknown> = {}) =>
    events.push({
      type,
      executionId: snap.id,
      workflowId: snap.workflowId,
      ownerId: snap.ownerId,
      at: 0,
      id: String(events.length),
      ...(step ? { step } : {}),
      data,
    });
  return { snap, events, emit };
}

describe("reuseSourceSteps", () => {
  it("copies the states before fromStep, marked reused, with savedUsage and the completed count; the execution's usage stays zero", async () => {
    const { store, created } = fakeStore(source());
    const { snap, events, emit } = rerunSnapshot("last");
    expect(await reuseSourceSteps({ snap, emit }, workflow(), store)).toBe(true);
    expect(Object.keys(snap.steps)).toEqual(["ask", "write"]);
    expect(snap.steps.ask).toEqual({ ...source().steps.ask, reused: true });
    expect(snap).toMatchObject({
      status: "RUNNING",
      completedSteps: 2,
      savedUsage: askUsage,
      usage: { totalTokens: 0, costUsd: 0 },
    });
    const [copy] = [...created.values()];
    expect(copy).toEqual({ ...artifact, id: expect.not.stringMatching(/^a1$/), executionId: "new" });
    expect(snap.steps.write!.artifacts).toEqual([copy!.id]);
    expect(events.map((e) => [e.type, e.step, e.data.rerunOf])).toEqual([
      ["step_reused", "ask", "src"],
      ["step_reused", "write", "src"],
    ]);
  });

  it("makes the same artifact records when the start is handled again", async () => {
    const { store, created } = fakeStore(source());
    const first = rerunSnapshot("last");
    await reuseSourceSteps(first, workflow(), store);
    const again = rerunSnapshot("last");
    expect(await reuseSourceSteps(again, workflow(), store)).toBe(true);
    expect(created.size).toBe(1);
    expect(again.snap.steps.write!.artifacts).toEqual(first.snap.steps.write!.artifacts);
  });

  it("ends the execution FAILED, saying why, when the source is gone or cannot be reused", async () => {
    const gone = rerunSnapshot("last");
    expect(await reuseSourceSteps(gone, workflow(), fakeStore(null).store)).toBe(false);
    expect(gone.snap).toMatchObject({
      status: "FAILED",
      error: "cannot rerun execution src: it does not exist",
      holder: null,
      steps: {},
    });
    expect(gone.events.map((e) => e.type)).toEqual(["exec_failed"]);

    const past = rerunSnapshot("nowhere");
    expect(await reuseSourceSteps(past, workflow(), fakeStore(source()).store)).toBe(false);
    expect(past.snap.error).toContain("no top-level step `nowhere`");
  });

  it("leaves an execution that is no rerun alone", async () => {
    const { snap, events, emit } = rerunSnapshot("last");
    snap.rerunOf = null;
    expect(await reuseSourceSteps({ snap, emit }, workflow(), fakeStore(source()).store)).toBe(true);
    expect(snap.steps).toEqual({});
    expect(events).toEqual([]);
  });
});
