import { describe, expect, it } from "vitest";
import { ExecutionSnapshot, resultLimits, sharedDefinition, type StepState } from "@wf/shared/execution";
import { SecretMasker } from "@wf/shared/secrets";
import { RecordBudget } from "./record-budget";
import { jsonBytes } from "./result-limits";

const LIMITS = resultLimits(64 * 1024);

function snapshot(steps: Record<string, StepState> = {}): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: "e1",
    workflowId: "w1",
    workflowName: "w",
    ownerId: "o1",
    triggerSource: "open_api",
    status: "RUNNING",
    totalSteps: 1,
    createdAt: 1,
    vars: { who: "x" },
    definition: { name: "w", steps: [{ name: "a", type: "transform", output: 1 }] },
    steps,
  });
}

function state(name: string, output?: unknown): StepState {
  return {
    name,
    type: "transform",
    status: "COMPLETED",
    error: null,
    attempts: 1,
    startedAt: 1,
    completedAt: 2,
    duration: 1,
    waitUntil: null,
    retryAt: null,
    deadline: null,
    childExecutionId: null,
    approvalId: null,
    ...(output === undefined ? {} : { output }),
  };
}

describe("RecordBudget", () => {
  it("accounts the record as serialised: what the snapshot holds, step by step", () => {
    const snap = snapshot({ a: state("a", "x".repeat(1_000)) });
    const budget = new RecordBudget(snap, LIMITS, new SecretMasker());
    const whole = jsonBytes({ ...snap, output: undefined, outbox: [] });
    // Within a few bytes per step (the separators between states).
    expect(Math.abs(budget.used - whole)).toBeLessThanOrEqual(4);
    const b = state("b", "y".repeat(2_000));
    snap.steps.b = b;
    budget.account("b", b);
    expect(Math.abs(budget.used - jsonBytes({ ...snap, output: undefined, outbox: [] }))).toBeLessThanOrEqual(8);
    delete snap.steps.b;
    budget.forget("b");
    expect(Math.abs(budget.used - whole)).toBeLessThanOrEqual(4);
  });

  it("counts an output measured as it was kept to the byte, as it counts one it measures itself", () => {
    const outputs = [
      "é".repeat(300),
      { rows: [{ id: 1, note: 'a "quote"\n' }], n: null },
      [1, 2.5, "€"],
      "x".repeat(LIMITS.outputBytes + 10),
    ];
    for (const output of outputs) {
      const [told, measured] = [
        new RecordBudget(snapshot(), LIMITS, new SecretMasker()),
        new RecordBudget(snapshot(), LIMITS, new SecretMasker()),
      ];
      const kept = told.output(output);
      expect(kept.bytes).toBe(jsonBytes(kept.value));
      expect(told.admit("a", state("a", kept.value), "its result", kept.bytes)).toBeNull();
      expect(measured.admit("a", state("a", kept.value), "its result")).toBeNull();
      expect(told.used).toBe(measured.used);
    }
  });

  it("counts a shared definition from its kept JSON, to the byte, whatever its characters", () => {
    const snap = snapshot();
    snap.definition = sharedDefinition(
      {
        name: "w",
        description: "café ✓ 数",
        steps: [{ name: "a", type: "transform" }],
      },
      snap.ownerId,
    );
    expect(Object.isFrozen(snap.definition)).toBe(true);
    const budget = new RecordBudget(snap, LIMITS, new SecretMasker());
    expect(budget.used).toBe(jsonBytes({ ...snap, output: undefined, outbox: [] }));
  });

  it("counts a definition the store names by reference at what naming it takes, and whole once it holds a secret", () => {
    const snap = snapshot();
    snap.definition = sharedDefinition(
      { name: "w", description: "the key is k3y-v4lue", steps: [{ name: "a" }] },
      snap.ownerId,
    );
    const masker = new SecretMasker();
    const budget = new RecordBudget(snap, LIMITS, masker, () => 62);
    const rest = jsonBytes({ ...snap, definition: undefined, output: undefined, outbox: [] });
    expect(budget.used).toBe(rest + 62);
    // A secret the run reads turns out to be in it: the record will hold it whole, masked.
    masker.add(["k3y-v4lue"]);
    expect(budget.used).toBe(jsonBytes({ ...snap, output: undefined, outbox: [] }));
    // And one the store holds whole is counted whole.
    expect(new RecordBudget(snap, LIMITS, new SecretMasker(), () => null).used).toBe(
      jsonBytes({ ...snap, output: undefined, outbox: [] }),
    );
  });

  it("admits results while the room lasts, then fails the one that would pass it, taking its bulk out", () => {
    const snap = snapshot();
    const budget = new RecordBudget(snap, LIMITS, new SecretMasker());
    const each = Math.floor(LIMITS.outputBytes * 0.9);
    let refused: string | null = null;
    let n = 0;
    while (refused === null && n < 100) {
      const kept = budget.output("z".repeat(each));
      const st = state(`s${n}`, kept.value);
      snap.steps[`s${n}`] = st;
      refused = budget.admit(`s${n}`, st, "its result", kept.bytes);
      n += 1;
    }
    expect(budget.used).toBeLessThanOrEqual(budget.room);
    const last = snap.steps[`s${n - 1}`]!;
    expect(last.output).toBeUndefined();
    expect(refused).toMatch(
      /^its result \(\d+ bytes\) would take the execution's record past its room: it holds \d+ bytes already and may hold \d+ \(the NATS server's max_payload is 65536/,
    );
    expect(refused).toMatch(
      /; its variables take 11 bytes of it, its definition \d+ and its steps \d+; keep outputs smaller/,
    );
    // What is left, the record's output and error and a full outbox still fit under max_payload.
    expect(budget.used + LIMITS.outputBytes + LIMITS.errorBytes + 2 * LIMITS.outboxBytes).toBeLessThan(
      LIMITS.recordBytes,
    );
  });

  it("names the variables when they take more of the room than the steps: the inputs are what to make smaller", () => {
    const snap = snapshot();
    snap.vars = { text: "v".repeat(Math.floor(LIMITS.recordBytes * 0.6)) };
    const budget = new RecordBudget(snap, LIMITS, new SecretMasker());
    const st = state("a", budget.output("z".repeat(1_000)).value);
    snap.steps.a = st;
    const refused = budget.admit("a", st, "its result");
    expect(refused).toMatch(
      new RegExp(
        `; its variables take ${jsonBytes(snap.vars)} bytes of it, its definition \\d+ and its steps \\d+; pass large inputs by reference`,
      ),
    );
  });

  it("masks secrets before it cuts, so that a cut never leaves part of one", () => {
    const masker = new SecretMasker();
    masker.add(["s3cr3t-value"]);
    const budget = new RecordBudget(snapshot(), LIMITS, masker);
    // Where a cut of this much text falls: the secret starts 5 characters before it.
    const length = LIMITS.outputBytes + 100;
    const keptOfPlain = (budget.output("a".repeat(length)).value as string).indexOf("\n[");
    const text = `${"a".repeat(keptOfPlain - 5)}s3cr3t-value`.padEnd(length, "b");
    const kept = budget.output(text).value as string;
    expect(kept).not.toContain("s3cr3");
    expect(kept).toContain("***");
    expect(budget.error(`failed with s3cr3t-value`)).toBe("failed with ***");
  });
});
