import { describe, expect, it } from "vitest";
import { ExecutionSnapshot } from "../execution";
import { outboxForm } from "./outbox-form";
import { storedForm } from "./stored-form";

const stored = storedForm(ExecutionSnapshot);
/** A snapshot as the KV store writes it and reads it back. */
const roundTrip = (s: ExecutionSnapshot): ExecutionSnapshot =>
  ExecutionSnapshot.parse(outboxForm.restore(JSON.parse(JSON.stringify(outboxForm.compact(stored(s))))));

function ended(outbox: unknown[]): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: "e1",
    workflowId: "w1",
    workflowName: "two",
    ownerId: "o1",
    triggerSource: "webhook",
    status: "COMPLETED",
    totalSteps: 1,
    createdAt: 9,
    vars: {},
    definition: {},
    eventSeq: 2,
    outbox,
  });
}

const event = (n: number, over: Record<string, unknown> = {}) => ({
  type: "step_completed",
  executionId: "e1",
  workflowId: "w1",
  ownerId: "o1",
  at: 12,
  id: `e1.${n}`,
  step: "s1",
  data: { output: n },
  ...over,
});

describe("the stored form of an execution's outbox", () => {
  it("leaves out what each event repeats of its execution, an id as its number, and reading puts it back", () => {
    const snap = ended([event(1), event(2, { type: "exec_completed", step: undefined })]);
    const form = outboxForm.compact(stored(snap)) as { outbox: Record<string, unknown>[] };
    expect(form.outbox).toEqual([
      { type: "step_completed", at: 12, id: ".1", step: "s1", data: { output: 1 } },
      { type: "exec_completed", at: 12, id: ".2", data: { output: 2 } },
    ]);
    expect(roundTrip(snap)).toEqual(snap);
    const whole = JSON.stringify(stored(snap)).length;
    expect(JSON.stringify(form).length).toBeLessThan(whole - 2 * "executionId e1 workflowId w1 ownerId o1".length);
  });

  it("keeps what an event does not share with its execution", () => {
    const other = event(1, { executionId: "child", workflowId: "w2", ownerId: "o2", id: "child.7" });
    const snap = ended([other]);
    expect((outboxForm.compact(stored(snap)) as { outbox: unknown[] }).outbox).toEqual([
      {
        type: "step_completed",
        executionId: "child",
        workflowId: "w2",
        ownerId: "o2",
        at: 12,
        id: "child.7",
        step: "s1",
        data: { output: 1 },
      },
    ]);
    expect(roundTrip(snap)).toEqual(snap);
  });

  it("reads a record written whole, as an earlier version wrote it, as it is; a record without an outbox is not copied", () => {
    const snap = ended([event(1), event(2)]);
    const whole = JSON.parse(JSON.stringify(stored(snap))) as unknown;
    expect(ExecutionSnapshot.parse(outboxForm.restore(whole))).toEqual(snap);
    const empty = stored(ended([]));
    expect(outboxForm.compact(empty)).toBe(empty);
    expect(outboxForm.restore(empty)).toBe(empty);
  });
});
