import { describe, expect, it } from "vitest";
import { call, consoleAccount, storeWorkflow, useApi } from "../api/support";
import { waitFor } from "../support/runtime";

/** Three branches whose x steps complete at one moment: each after_step hit past the first waits its turn. */
const THREE_BRANCHES = `
name: waiting-turns
steps:
  - name: par
    type: parallel
    branches:
      b1: [{ name: x1, type: transform, output: 1 }]
      b2: [{ name: x2, type: transform, output: 2 }]
      b3: [{ name: x3, type: transform, output: 3 }]
`;

interface WaitingPoint {
  stepPath: string;
  branch: string | null;
}
interface View {
  status: string;
  pause: { id: string; stepPath: string } | null;
  waiting: WaitingPoint[];
  held: unknown[];
}

/** What the view says of a branch of THREE_BRANCHES waiting after its x step for its after_step breakpoint. */
const waitingAfter = (n: number) => ({
  stepPath: `x${n}`,
  phase: "after",
  occurrence: 0,
  items: [],
  branch: `b${n}`,
  breakpoints: [{ id: `bp${n}`, type: "after_step" }],
  reason: `After step breakpoint bp${n}`,
});

describe("the console's execution view of a debug run", () => {
  const api = useApi({ runtime: true });

  it("lists the branches waiting their turn behind the pause in the order they pause, one fewer with each answered", async () => {
    const me = await consoleAccount(api());
    const wf = await storeWorkflow(api(), me.user.id, THREE_BRANCHES);
    const headers = { cookie: me.cookie, "x-csrf-token": me.csrf };
    const started = await call(api(), "POST", `/api/console/workflows/${wf.id}/executions`, {
      body: { inputs: {}, debug: { breakpoints: ["x1", "x2", "x3"].map((step) => ({ type: "after_step", step })) } },
      headers,
    });
    expect(started.statusCode, started.body).toBe(202);
    const id = (started.json() as { executionId: string }).executionId;
    const view = async (): Promise<View> => {
      const r = await call(api(), "GET", `/api/console/executions/${id}`, { headers });
      expect(r.statusCode, r.body).toBe(200);
      return r.json() as View;
    };
    /** The run paused at a pause other than `after`, once as many branches as `waiting` say wait behind it. */
    const pausedWith = (after: string, waiting: number) =>
      waitFor(
        async () => {
          const v = await view();
          if (!["PAUSED", "RUNNING"].includes(v.status)) throw new Error(`ended ${v.status} instead of pausing`);
          return v.pause && v.pause.id !== after && v.waiting.length === waiting ? v : undefined;
        },
        { timeoutMs: 15_000, what: `execution ${id} to pause with ${waiting} waiting` },
      );

    const pausedAt: string[] = [];
    let last = "";
    let listed: string[] = [];
    for (const behind of [2, 1, 0]) {
      const v = await pausedWith(last, behind);
      pausedAt.push(v.pause!.stepPath);
      // The pauses come in the order the view lists the points waiting: the first listed pauses next.
      if (listed.length > 0) expect(v.pause!.stepPath).toBe(listed[0]);
      listed = v.waiting.map((w) => w.stepPath);
      // Those still to pause, each under its own breakpoint; none the paused step, none paused at before.
      const left = [1, 2, 3].filter((n) => !pausedAt.includes(`x${n}`));
      expect(v.waiting.toSorted((a, b) => a.stepPath.localeCompare(b.stepPath))).toEqual(left.map(waitingAfter));
      expect(v.held).toEqual([]);
      const go = await call(api(), "POST", `/api/console/executions/${id}/debug/continue`, {
        body: { pauseId: v.pause!.id },
        headers,
      });
      expect(go.statusCode, go.body).toBe(202);
      last = v.pause!.id;
    }
    expect(pausedAt.toSorted()).toEqual(["x1", "x2", "x3"]);
    const done = await waitFor(
      async () => {
        const v = await view();
        return v.status === "COMPLETED" ? v : undefined;
      },
      { timeoutMs: 15_000, what: `execution ${id} to complete` },
    );
    expect([done.pause, done.waiting, done.held]).toEqual([null, [], []]);
  });

  it("documents the waiting points in the console's OpenAPI document, as the view's schema says them", async () => {
    const r = await call(api(), "GET", "/api/console/openapi.json");
    const doc = r.json() as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    };
    const view = doc.paths["/api/console/executions/{id}"]!.get.responses["200"]!.content["application/json"]!
      .schema as { properties: Record<string, { items: { required: string[]; properties: object } }> };
    for (const field of ["waiting", "held"]) {
      const point = view.properties[field]!.items;
      expect(point.required.toSorted(), field).toEqual(
        ["branch", "breakpoints", "items", "occurrence", "phase", "reason", "stepPath"].toSorted(),
      );
      expect(Object.keys(point.properties).toSorted(), field).toEqual(point.required.toSorted());
    }
  });
});
