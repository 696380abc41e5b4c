import { describe, expect, it } from "vitest";
import { cancelExecution } from "@wf/shared/client";
import { newId } from "@wf/shared/execution";
import { eventsOf, model, useAiEnv } from "./support/ai-env";
import { run, waitFor, waitForStatus } from "../support/runtime";

/** A free owner's share of model calls is 4 (PLAN_MODEL_CALLS); 6 at once in all on the executor. */
const TOTAL = 6;
const FREE_SHARE = 4;

const env = useAiEnv({ WF_AI_CALLS: String(TOTAL) });

/** A foreach of `n` llm steps of `m`, all at once. */
function fanOut(m: string, n: number): string {
  return `
name: fan-out
steps:
  - name: each
    type: foreach
    items: "{{ [1..${n}] }}"
    concurrency: ${n}
    steps:
      - { name: ask, type: llm, model: ${m}, prompt: "Item {{ item }}" }
`;
}

function released(): { held: Promise<void>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
}

describe("model calls on an executor", () => {
  it("hold one owner's fan-out to its share and all owners to the total, while another owner's call goes ahead", async () => {
    const { openai, rt } = env();
    const [mA, mB, mC] = [model(), model(), model()];
    const gate = released();
    openai.script(mA, ...Array.from({ length: 12 }, () => ({ text: "a", held: gate.held })));
    openai.script(mB, { text: "b" });
    openai.script(mC, ...Array.from({ length: 4 }, () => ({ text: "c", held: gate.held })));
    const a = await run(rt.platform, fanOut(mA, 12), { ownerId: `owner-a-${newId()}` });
    await waitFor(() => openai.inFlight(mA).now === FREE_SHARE, { what: "owner A's share of calls in flight" });

    // Owner B's one call is admitted while owner A's other 8 wait for A's own places.
    const b = await run(rt.platform, fanOut(mB, 1), { ownerId: `owner-b-${newId()}` });
    expect((await waitForStatus(rt.platform, b)).status).toBe("COMPLETED");
    expect(openai.requests(mA)).toHaveLength(FREE_SHARE);

    // Owner C's fan-out takes what is left of the total, not its share.
    const c = await run(rt.platform, fanOut(mC, 4), { ownerId: `owner-c-${newId()}` });
    await waitFor(() => openai.inFlight(mC).now === TOTAL - FREE_SHARE, { what: "owner C's calls in flight" });
    expect(openai.requests(mC)).toHaveLength(TOTAL - FREE_SHARE);
    expect(openai.requests(mA)).toHaveLength(FREE_SHARE);

    gate.release();
    for (const id of [a, c]) expect((await waitForStatus(rt.platform, id)).status).toBe("COMPLETED");
    expect(openai.requests(mA)).toHaveLength(12);
    expect(openai.inFlight(mA).most).toBe(FREE_SHARE);
    expect(openai.inFlight(mC).most).toBe(TOTAL - FREE_SHARE);
    expect(openai.inFlight().most).toBeLessThanOrEqual(TOTAL);
    // The calls that waited say so in their usage events.
    const usage = (await eventsOf(env(), a)).filter((e) => e.type === "step_usage");
    expect(usage).toHaveLength(12);
    expect(usage.filter((e) => typeof e.data.waitedMs === "number" && e.data.waitedMs > 0).length).toBeGreaterThan(0);
  });

  it("take a cancelled execution's waiting calls out of the queue: none is sent, and its owner's next call goes", async () => {
    const { openai, rt } = env();
    const [mX, mY] = [model(), model()];
    const gate = released();
    openai.script(mX, ...Array.from({ length: 10 }, () => ({ text: "x", held: gate.held })));
    openai.script(mY, { text: "y" });
    const owner = `owner-x-${newId()}`;
    const x = await run(rt.platform, fanOut(mX, 10), { ownerId: owner });
    await waitFor(() => openai.inFlight(mX).now === FREE_SHARE, { what: "the owner's share of calls in flight" });
    await cancelExecution(rt.platform.js, rt.ns, x, "enough");
    expect((await waitForStatus(rt.platform, x)).status).toBe("CANCELLED");
    await waitFor(() => openai.inFlight(mX).now === 0, { what: "the cancelled calls to end" });

    const y = await run(rt.platform, fanOut(mY, 1), { ownerId: owner });
    expect((await waitForStatus(rt.platform, y)).status).toBe("COMPLETED");
    expect(openai.requests(mX)).toHaveLength(FREE_SHARE);
    gate.release();
  });
});
