import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ExecutionSnapshot } from "../execution";
import { storedForm } from "./stored-form";

const stored = storedForm(ExecutionSnapshot);
/** A snapshot as the store writes it and reads it back. */
const roundTrip = (s: ExecutionSnapshot): ExecutionSnapshot =>
  ExecutionSnapshot.parse(JSON.parse(JSON.stringify(stored(s))));

function finished(): ExecutionSnapshot {
  const step = (name: string, output: number) => ({
    name,
    type: "code",
    status: "COMPLETED",
    attempts: 1,
    startedAt: 10,
    completedAt: 12,
    duration: 2,
    output,
  });
  const event = (n: number, type: string) => ({
    type,
    executionId: "e1",
    workflowId: "w1",
    ownerId: "o1",
    at: 12,
    id: `e1.${n}`,
  });
  return ExecutionSnapshot.parse({
    id: "e1",
    workflowId: "w1",
    workflowName: "three",
    workflowVersion: 1,
    ownerId: "o1",
    triggerSource: "webhook",
    status: "COMPLETED",
    completedSteps: 3,
    totalSteps: 3,
    createdAt: 9,
    startedAt: 10,
    completedAt: 12,
    vars: { who: "x" },
    definition: { name: "three", steps: [{ name: "s1", type: "code", language: "javascript", code: "return 1" }] },
    steps: { s1: step("s1", 1), s2: step("s2", 2), s3: step("s3", 3) },
    output: 3,
    eventSeq: 8,
    outbox: [event(7, "step_completed"), { ...event(8, "exec_completed"), data: { status: "COMPLETED" } }],
  });
}

describe("the stored form of a record", () => {
  it("leaves out every field at its default, and reading it through the schema gives the record back whole", () => {
    const snap = finished();
    const form = stored(snap) as Record<string, unknown> & {
      steps: Record<string, Record<string, unknown>>;
      outbox: Record<string, unknown>[];
    };
    for (const key of [
      "error",
      "currentStep",
      "usage",
      "savedUsage",
      "parent",
      "holder",
      "cancelRequested",
      "debug",
      "rerunOf",
      "rerunFrom",
      "enableMonitoring",
    ])
      expect(form, key).not.toHaveProperty(key);
    expect(Object.keys(form.steps.s1!).sort()).toEqual([
      "attempts",
      "completedAt",
      "duration",
      "name",
      "output",
      "startedAt",
      "status",
      "type",
    ]);
    expect(form.outbox[0]).not.toHaveProperty("data");
    expect(form.outbox[1]).toHaveProperty("data", { status: "COMPLETED" });
    expect(roundTrip(snap)).toEqual(snap);
    expect(JSON.stringify(form).length).toBeLessThan(0.8 * JSON.stringify(snap).length);
  });

  it("keeps what differs from a default, however close to it", () => {
    const snap = finished();
    snap.error = "";
    snap.usage = { ...snap.usage, totalTokens: 1 };
    snap.holder = { actor: "a", seq: 0, since: 0 };
    snap.cancelRequested = true;
    snap.steps.s1!.attempts = 0;
    snap.steps.s2!.retryAt = 0;
    snap.outbox = [];
    const form = stored(snap) as Record<string, unknown> & { steps: Record<string, Record<string, unknown>> };
    expect(form).toMatchObject({
      error: "",
      usage: { totalTokens: 1 },
      holder: { actor: "a", seq: 0, since: 0 },
      cancelRequested: true,
    });
    expect(form).not.toHaveProperty("outbox");
    expect(form.steps.s1).not.toHaveProperty("attempts");
    expect(form.steps.s2).toHaveProperty("retryAt", 0);
    expect(roundTrip(snap)).toEqual(snap);
  });

  it("never leaves out a field whose default is made anew each time, nor reaches into what a union parses", () => {
    let made = 0;
    const schema = z.object({
      at: z.number().default(() => ++made),
      either: z.union([z.object({ n: z.number().default(0) }), z.string()]),
      list: z.array(z.object({ flag: z.boolean().default(false), name: z.string() })),
    });
    const form = storedForm(schema);
    expect(form({ at: made + 1, either: { n: 0 }, list: [{ flag: false, name: "a" }] })).toEqual({
      at: made + 1,
      either: { n: 0 },
      list: [{ name: "a" }],
    });
    // Nothing to leave out anywhere: the record itself.
    const plain = z.object({ a: z.string(), b: z.array(z.number()) });
    const value = { a: "x", b: [1] };
    expect(storedForm(plain)(value)).toBe(value);
  });
});
