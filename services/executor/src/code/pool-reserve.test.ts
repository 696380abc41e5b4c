import { runnerBundles, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeResult, CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { JS_SHARES } from "./js-bounds";
import { step } from "./testing/processes";

/** Says it started, then loops until its timeout (far off) or its abort. */
const LOOP = 'console.log("started"); while (true) {}';
const LOOP_TIMEOUT_MS = 120_000;
/** Far under LOOP_TIMEOUT_MS: the newcomer's step must not wait for a loop to end. */
const NEWCOMER_BOUND_MS = 30_000;

describe("the reserve of a runner's JavaScript isolates", () => {
  let runner: CodeRunner;
  beforeAll(async () => {
    runner = await createCodeRunner({ jsMemoryLimitMb: 128, pool: 1, ...runnerBundles() });
    await runner.run(step("javascript", "return 1"));
  });
  afterAll(() => runner.close());

  it("runs a third owner's step while two Team owners hold all they may with steps in endless loops", async () => {
    const stop = new AbortController();
    const started = new Map<string, number>();
    const count = (owner: string) => () => void started.set(owner, (started.get(owner) ?? 0) + 1);
    // Each asks for its whole share: 6 of the 8 isolates on 2 cores, 12 together.
    const loops: Promise<CodeResult>[] = [];
    for (const owner of ["team-a", "team-b"])
      for (let i = 0; i < JS_SHARES.share("team"); i++)
        loops.push(
          runner.run(
            step("javascript", LOOP, { owner, ownerPlan: "team", timeoutMs: LOOP_TIMEOUT_MS }),
            stop.signal,
            count(owner),
          ),
        );
    try {
      const held = (): number => (started.get("team-a") ?? 0) + (started.get("team-b") ?? 0);
      // They hold what they may: all but the reserve.
      await waitFor(() => held() >= JS_SHARES.limit - JS_SHARES.reserve, { timeoutMs: 30_000, what: "the loops" });
      const sent = performance.now();
      const newcomer = runner.run(step("javascript", "return 'mine'", { owner: "free-c", ownerPlan: "free" }));
      void newcomer.then(() =>
        console.log(
          `[pool reserve] the newcomer's step ended ${Math.round(performance.now() - sent)} ms after it was sent`,
        ),
      );
      const bound = new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), NEWCOMER_BOUND_MS).unref());
      const result = await Promise.race([newcomer, bound]);
      expect(result).toMatchObject({ ok: true, output: "mine" });
      // The loops never took the reserve (the two owners took turns at the rest).
      expect(held()).toBe(JS_SHARES.limit - JS_SHARES.reserve);
    } finally {
      stop.abort();
      await Promise.all(loops);
    }
  }, 90_000);
});
