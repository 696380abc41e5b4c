import { newId } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useNatsServer } from "@wf/testing/nats-connection";
import { StartBudget } from "@wf/scheduler";
import { startRuntime, testConfig, waitForStatus, type InProcessRuntime } from "../support/runtime";
import { createOwner, startStored, storeWorkflow } from "./support";

/** Each owner's triggered starts a minute, counted in the rate-limit bucket of a real nats-server. */
const nats = useNatsServer();
let rt: InProcessRuntime;
let budget: StartBudget;
const warnings: { msg: string; fields: Record<string, unknown> }[] = [];

const recording: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (msg, fields = {}) => void warnings.push({ msg, fields }),
  error: () => undefined,
  child: () => recording,
};

beforeAll(async () => {
  rt = await startRuntime(testConfig(nats.server), { scheduler: false, approvals: false });
  budget = await StartBudget.open(rt.platform, recording);
});
afterAll(async () => {
  await budget?.close();
  await rt?.stop();
});

// A fixed minute, so that the test never straddles two.
const MINUTE = Date.UTC(2031, 4, 6, 12, 30, 0);
const source = { workflowId: "w", trigger: "schedule" };

describe("the triggered-start budget", () => {
  it("allows an owner's plan's per-minute limit of starts, then none until the next minute; says so once", async () => {
    const owner = await createOwner(rt.platform, "pro");
    const other = await createOwner(rt.platform, "free");
    const at = MINUTE + 5_000;
    // Counted at once from many places: each start has its own rank.
    const first = await Promise.all(Array.from({ length: 300 }, () => budget.allows(owner, newId(), source, at)));
    expect(first.every(Boolean)).toBe(true);

    warnings.length = 0;
    expect(await budget.allows(owner, newId(), source, at + 1_000)).toBe(false);
    expect(await budget.allows(owner, newId(), source, at + 2_000)).toBe(false);
    expect(warnings).toEqual([
      {
        msg: "triggered runs skipped: the owner's triggered starts reached their plan's limit this minute",
        fields: { ownerId: owner.id, plan: "pro", perMinute: 300, ...source },
      },
    ]);
    // Another owner's budget is their own.
    expect(await budget.allows(other, newId(), source, at)).toBe(true);
    // The next minute starts afresh.
    expect(await budget.allows(owner, newId(), source, MINUTE + 60_000)).toBe(true);
  });

  it("lets a start through uncounted when its execution exists: a trigger delivered again", async () => {
    const owner = await createOwner(rt.platform, "free");
    const w = await storeWorkflow(
      rt.platform,
      owner.id,
      "name: x\nsteps:\n  - { name: a, type: transform, output: 1 }\n",
    );
    const existing = await startStored(rt.platform, w);
    await waitForStatus(rt.platform, existing);
    const at = MINUTE + 10_000;
    for (let i = 0; i < 60; i++) expect(await budget.allows(owner, newId(), source, at)).toBe(true);
    expect(await budget.allows(owner, newId(), source, at)).toBe(false);
    expect(await budget.allows(owner, existing, source, at)).toBe(true);
  });
});
