import { describe, expect, it } from "vitest";
import { ExecutionSnapshot, sharedDefinition } from "../execution";
import { executionForm } from "./execution-form";
import { storedForm } from "./stored-form";

const stored = storedForm(ExecutionSnapshot);

function snapshot(definition: unknown): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: "e1",
    workflowId: "w1",
    workflowName: "form",
    ownerId: "o1",
    triggerSource: "webhook",
    status: "COMPLETED",
    totalSteps: 1,
    createdAt: 9,
    vars: { who: "x" },
    definition,
    output: { done: true },
    eventSeq: 1,
    outbox: [{ type: "exec_completed", executionId: "e1", workflowId: "w1", ownerId: "o1", at: 12, id: "e1.1" }],
  });
}

/** What the KV store writes for `snap`, read back as the store reads it. */
function written(snap: ExecutionSnapshot): { text: string; read: ExecutionSnapshot } {
  const text = executionForm.stringify!(executionForm.compact(stored(snap)));
  return { text, read: ExecutionSnapshot.parse(executionForm.restore(JSON.parse(text))) };
}

describe("an execution record's JSON", () => {
  const definition = { name: "form", description: 'a "quoted" café', steps: [{ name: "a", type: "transform" }] };

  it("writes a shared definition from its kept JSON, and reads back the record it was", () => {
    const snap = snapshot(sharedDefinition(structuredClone(definition)));
    const { text, read } = written(snap);
    expect(read).toEqual(snapshot(definition));
    expect(text.endsWith(`,"definition":${JSON.stringify(definition)}}`)).toBe(true);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(executionForm.compact(stored(snap)))));
  });

  it("writes a definition nobody shares as JSON.stringify does", () => {
    const snap = snapshot(structuredClone(definition));
    const { text, read } = written(snap);
    expect(text).toBe(JSON.stringify(executionForm.compact(stored(snap))));
    expect(read).toEqual(snap);
  });
});
