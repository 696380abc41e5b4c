import { describe, expect, it } from "vitest";
import { streamNames, subjects } from "@wf/shared/nats";
import { waitFor } from "../support/runtime";
import { useApi } from "./support";

/** Three records a minute from one address for one reason: the rest of a burst is counted. */
const api = useApi({ env: { WF_AUDIT_PER_IP_PER_MINUTE: "3", WF_AUDIT_PER_MINUTE: "1000" } });

describe("the audit budget of an edge", () => {
  it("answers every refusal alike, records the first few of a minute and writes the rest as one summary once the minute ended", async () => {
    const env = api();
    const wrong = "wfk_not_a_key";
    const start = Date.now();
    env.clock.now = start;
    const answers = [];
    for (let i = 0; i < 10; i++)
      answers.push(
        await env.app.inject({
          method: "GET",
          url: "/api/v1/workflows",
          headers: { authorization: `Bearer ${wrong}` },
        }),
      );
    const shown = answers.map((r) => ({ status: r.statusCode, body: r.body }));
    expect(new Set(shown.map((s) => JSON.stringify(s))).size).toBe(1);
    expect(shown[0]!.status).toBe(401);

    const recorded = async () =>
      (await env.platform.store.audit.listSince(start - 60_000, { page: 1, size: 100 })).items.filter(
        (r) => r.reason === "malformed",
      );
    const one = await recorded();
    expect(one.map((r) => r.repeats)).toEqual([0, 0, 0]);

    // The minute ends (the edge's clock): its counts are written within the flush period.
    env.clock.now = start + 61_000;
    const all = await waitFor(
      async () => {
        const now = await recorded();
        return now.length === 4 ? now : undefined;
      },
      { timeoutMs: 15_000, what: "the minute's summary record" },
    );
    const summary = all.find((r) => r.repeats > 0)!;
    expect(summary).toMatchObject({
      reason: "malformed",
      repeats: 7,
      ip: one[0]!.ip,
      method: "GET",
      path: "/api/v1/workflows",
      keyId: null,
    });
    const event = await env.platform.jsm.streams.getMessage(streamNames(env.ns).audit, {
      last_by_subj: subjects(env.ns).audit("malformed"),
    });
    expect(event?.json()).toEqual(summary);
    env.clock.now = null;
  }, 30_000);
});
