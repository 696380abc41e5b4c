import { describe, expect, it } from "vitest";
import { END_EVENT_TYPES, endEventType, endedStatus, TERMINAL_STATUSES } from "./index";

describe("end events", () => {
  it("name each final status, and tell it back from the event's type", () => {
    expect([...END_EVENT_TYPES].sort()).toEqual([
      "exec_cancelled",
      "exec_completed",
      "exec_failed",
      "exec_interrupted",
    ]);
    for (const status of TERMINAL_STATUSES) expect(endedStatus(endEventType(status))).toBe(status);
  });

  it("say nothing of an event that ends nothing", () => {
    for (const type of ["exec_started", "exec_parked", "exec_resumed", "step_completed", "exec_COMPLETED", ""])
      expect(endedStatus(type)).toBeUndefined();
  });
});
