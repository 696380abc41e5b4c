import { describe, expect, it } from "vitest";
import { renderLlmOverhead, runLlmOverhead } from "./llm-overhead";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();

describe("bench harness (smoke): llm step overhead", () => {
  it("runs llm and transform executions and direct provider calls, and reports every figure", async () => {
    const r = await runLlmOverhead(nats.server, { warmup: 1, runs: 3, timeoutMs: 10_000 });
    expect(r.failures).toEqual([]);
    for (const s of [r.providerMs, r.llmRunMs, r.transformRunMs]) {
      expect(s.n).toBe(3);
      expect(Number.isFinite(s.median)).toBe(true);
    }
    expect(Number.isFinite(r.addedMs)).toBe(true);
    expect(typeof r.aimMet).toBe("boolean");
    expect(renderLlmOverhead(r)).toContain("added by the llm step");
  }, 60_000);
});
