import { describe, expect, it } from "vitest";
import type { ExecutionEvent } from "../../api/events";
import type { ExecutionView } from "../../api/types";
import { applyEvent, applyNewer, eventNumber } from "./apply-event";

describe("an event applied to the view", () => {
  const view = {
    status: "RUNNING",
    pause: null,
    completeAt: null,
    currentStep: null,
    completedSteps: 0,
    steps: {},
  } as unknown as ExecutionView;
  const event = (type: string, data: Record<string, unknown>, stepPath?: string): ExecutionEvent => ({
    type,
    executionId: "e1",
    workflowId: "w1",
    ownerId: "u1",
    at: 1000,
    id: `e1.${type}`,
    data,
    ...(stepPath ? { step: stepPath } : {}),
  });

  it("names the child execution a workflow step started", () => {
    const started = applyEvent(view, event("step_started", { attempt: 1 }, "call"));
    expect(started.steps.call?.childExecutionId).toBeNull();
    const child = applyEvent(started, event("step_child", { childExecutionId: "e2" }, "call"));
    expect(child.steps.call).toMatchObject({ status: "RUNNING", childExecutionId: "e2" });
  });

  it("turns a step running, then completed with its output, and ends the execution", () => {
    const started = applyEvent(view, event("step_started", { attempt: 1 }, "a"));
    expect(started.steps.a?.status).toBe("RUNNING");
    expect(started.currentStep).toBe("a");
    const done = applyEvent(
      started,
      event("step_completed", { status: "COMPLETED", output: { n: 1 }, duration: 12, attempts: 1 }, "a"),
    );
    expect(done.steps.a).toMatchObject({ status: "COMPLETED", output: { n: 1 }, duration: 12, completedAt: 1000 });
    // The summary counts it, as the executor does: once, and only at the top level.
    expect(done.completedSteps).toBe(1);
    expect(applyEvent(done, event("step_completed", { status: "COMPLETED" }, "a")).completedSteps).toBe(1);
    expect(applyEvent(done, event("step_completed", { status: "COMPLETED" }, "each[0].b")).completedSteps).toBe(1);
    expect(applyEvent(done, event("exec_completed", { status: "COMPLETED" }))).toMatchObject({
      status: "COMPLETED",
      completeAt: 1000,
    });
    // A log line changes no state.
    expect(applyEvent(done, event("step_log", { lines: ["x"] }, "a"))).toBe(done);
  });

  it("counts a step's tokens and cost up with each LLM call, and takes a reused step's usage as recorded", () => {
    const spent = { promptTokens: 90, completionTokens: 10, totalTokens: 100, costUsd: 0.001 };
    const running = applyEvent(view, event("step_started", { attempt: 1 }, "ask"));
    const called = applyEvent(running, event("step_usage", { call: 1, totalTokens: 100, stepUsage: spent }, "ask"));
    expect(called.steps.ask).toMatchObject({ status: "RUNNING", usage: spent });
    expect(applyEvent(called, event("step_usage", { call: 2 }, "ask"))).toBe(called);
    expect(
      applyEvent(view, event("step_reused", { status: "COMPLETED", output: "x", usage: spent }, "ask")).steps.ask,
    ).toMatchObject({
      status: "COMPLETED",
      reused: true,
      edited: false,
      usage: spent,
    });
  });

  it("marks a reused step edited when its event says it stands on a debugger's edit", () => {
    const reused = (data: Record<string, unknown>) =>
      applyEvent(view, event("step_reused", { status: "COMPLETED", output: 5, ...data }, "one")).steps.one;
    expect(reused({ edited: true })).toMatchObject({ status: "COMPLETED", output: 5, reused: true, edited: true });
    expect(reused({})).toMatchObject({ reused: true, edited: false });
  });

  it("says PAUSED while a debug run waits, even when the executor reports it RUNNING as it parks", () => {
    const pause = {
      id: "p1",
      breakpointId: "bp1",
      type: "before_step",
      stepPath: "a",
      phase: "before",
      occurrence: 0,
      pausedAt: 1,
      context: { vars: {}, outputs: {} },
    };
    const paused = applyEvent(view, event("debug_paused", pause, "a"));
    expect(paused).toMatchObject({ status: "PAUSED", pause });
    expect(applyEvent(paused, event("exec_parked", { status: "RUNNING" })).status).toBe("PAUSED");
    expect(applyEvent(paused, event("debug_resumed", { pauseId: "p1", command: "continue" }, "a"))).toMatchObject({
      status: "RUNNING",
      pause: null,
    });
  });

  it("applies only events the view does not reflect, by their number, not by any clock", () => {
    const numbered = (n: number, type: string, data: Record<string, unknown>, stepPath?: string) => ({
      ...event(type, data, stepPath),
      id: `e1.${n}`,
    });
    // Fetched while PENDING: it reflects no event. Its clock says nothing of the events' order.
    const fetched = { ...view, status: "PENDING", eventSeq: 0 } as unknown as ExecutionView;
    const saved = { promptTokens: 1200, completionTokens: 300, totalTokens: 1500, costUsd: 0.0048 };
    const reused = applyNewer(
      fetched,
      numbered(2, "step_reused", { status: "COMPLETED", output: 1, savedUsage: saved }, "ask"),
    );
    expect(reused.steps.ask).toMatchObject({ status: "COMPLETED", reused: true });
    expect(reused.savedUsage).toEqual(saved);
    expect(reused.eventSeq).toBe(2);
    // Replayed history the view already holds changes nothing.
    const replayed = applyNewer(reused, numbered(1, "step_started", { attempt: 1 }, "ask"));
    expect(replayed).toBe(reused);
    // A live-only event (an LLM answer's delta) has no number and counts nothing.
    const delta = { ...event("step_delta", { text: "x" }, "ask"), id: "e1.delta.ask.1.1.0" };
    expect(eventNumber(delta)).toBeNull();
    expect(applyNewer(reused, delta)).toBe(reused);
  });
});
