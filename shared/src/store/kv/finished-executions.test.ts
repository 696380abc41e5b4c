import { afterEach, describe, expect, it, vi } from "vitest";
import { newId } from "../../execution/ids";
import { ExecutionSnapshot, type ExecutionStatus } from "../../execution/snapshot";
import {
  FINISHED_BUDGET_BYTES,
  FINISHED_CAPACITY,
  FINISHED_MAX_AGE_MS,
  FinishedExecutions,
} from "./finished-executions";

const execution = (status: ExecutionStatus) =>
  ExecutionSnapshot.parse({
    id: newId(),
    workflowId: "wf",
    workflowName: "wf",
    ownerId: "u",
    triggerSource: "open_api",
    status,
    totalSteps: 1,
    createdAt: 1,
    vars: {},
    definition: {},
  });

afterEach(() => void vi.useRealTimers());

describe("finished executions held for lists", () => {
  it("holds finished executions only, and serves one only under the status the index gives it", () => {
    const held = new FinishedExecutions();
    const running = execution("RUNNING");
    held.keep("r", running, 100);
    expect(held.get("r", "RUNNING")).toBeUndefined();
    const done = execution("COMPLETED");
    held.keep("d", done, 100);
    expect(held.get("d", "COMPLETED")).toEqual(done);
    expect(held.get("d", "FAILED")).toBeUndefined();
    // A mismatch drops it: the next list reads the record again.
    expect(held.get("d", "COMPLETED")).toBeUndefined();
  });

  it("reads a held record again once it is older than the bound", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const held = new FinishedExecutions();
    held.keep("d", execution("CANCELLED"), 100);
    vi.advanceTimersByTime(FINISHED_MAX_AGE_MS);
    expect(held.get("d", "CANCELLED")).toBeDefined();
    vi.advanceTimersByTime(1);
    expect(held.get("d", "CANCELLED")).toBeUndefined();
  });

  it("keeps within its count and its bytes, the oldest going first, and never holds a record too big for its share", () => {
    const held = new FinishedExecutions();
    const tenth = FINISHED_BUDGET_BYTES / 10;
    for (let i = 0; i <= 10; i++) held.keep(`big${i}`, execution("COMPLETED"), tenth);
    expect(held.get("big0", "COMPLETED")).toBeUndefined();
    for (let i = 1; i <= 10; i++) expect(held.get(`big${i}`, "COMPLETED"), `big${i}`).toBeDefined();
    held.keep("huge", execution("COMPLETED"), tenth + 1);
    expect(held.get("huge", "COMPLETED")).toBeUndefined();

    for (let i = 0; i <= FINISHED_CAPACITY; i++) held.keep(`small${i}`, execution("FAILED"), 1);
    expect(held.get("small0", "FAILED")).toBeUndefined();
    expect(held.get("small1", "FAILED")).toBeDefined();
    expect(held.get(`small${FINISHED_CAPACITY}`, "FAILED")).toBeDefined();
  });

  it("answers records that cannot be changed in place, since every list shares them", () => {
    const held = new FinishedExecutions();
    held.keep("d", execution("COMPLETED"), 100);
    const shared = held.get("d", "COMPLETED")!;
    expect(() => Object.assign(shared, { status: "FAILED" })).toThrow(TypeError);
    expect(() => Object.assign(shared.vars, { x: 1 })).toThrow(TypeError);
  });
});
