import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/client";
import type { Breakpoint, BreakpointInput } from "../../api/types";
import { putBreakpoints } from "./breakpoints-put";

const bp = (id: string, step: string): Breakpoint => ({ id, type: "before_step", step, enabled: true });
const stale = () => new ApiError(409, "CONFLICT", "the breakpoints were changed", { reason: "stale" });

/** A service holding one list: a change made on another revision than its own is refused as stale. */
function service(breakpoints: Breakpoint[], revision: number) {
  const state = { breakpoints, revision, sent: 0 };
  return {
    state,
    reload: () => Promise.resolve({ breakpoints: state.breakpoints, breakpointsRevision: state.revision }),
    send: (body: { breakpoints: BreakpointInput[]; revision: number }) => {
      state.sent++;
      if (body.revision !== state.revision) return Promise.reject(stale());
      state.breakpoints = body.breakpoints.map(
        (b, i) => ({ enabled: true, ...b, id: b.id ?? `new${i}` }) as Breakpoint,
      );
      state.revision++;
      return Promise.resolve({ executionId: "e1", breakpoints: state.breakpoints, revision: state.revision });
    },
  };
}

describe("a breakpoints change from the console", () => {
  it("made on a list changed meanwhile (another tab) is made again on the new one: both changes stay", async () => {
    // This page shows [a] at revision 1; another tab added b since.
    const s = service([bp("a", "a"), bp("b", "b")], 2);
    const answer = await putBreakpoints(
      (current) => current.filter((x) => x.id !== "a"),
      { breakpoints: [bp("a", "a")], breakpointsRevision: 1 },
      s.reload,
      s.send,
    );
    expect(answer).toMatchObject({ breakpoints: [{ id: "b" }], revision: 3 });
    expect(s.state.sent).toBe(2);
  });

  it("gives up after three refusals, and passes on any other refusal at once", async () => {
    const s = service([], 0);
    const refusing = () => {
      s.state.sent++;
      return Promise.reject(stale());
    };
    await expect(
      putBreakpoints((c) => c, { breakpoints: [], breakpointsRevision: 0 }, s.reload, refusing),
    ).rejects.toThrow("the breakpoints were changed");
    expect(s.state.sent).toBe(3);
    const ended = () => Promise.reject(new ApiError(409, "CONFLICT", "ended", { reason: "ended" }));
    await expect(
      putBreakpoints((c) => c, { breakpoints: [], breakpointsRevision: 0 }, s.reload, ended),
    ).rejects.toThrow("ended");
  });
});
