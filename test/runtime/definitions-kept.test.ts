import { Kvm } from "@nats-io/kv";
import { definitionRef, definitionsBucket } from "@wf/shared/nats";
import { newId } from "@wf/shared/execution";
import { cancelExecution } from "@wf/shared/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { definitionOf, run, startRuntime, testConfig, waitFor, waitForStatus } from "../support/runtime";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();
const HOUR_MS = 3_600_000;

describe("the definitions of running executions", () => {
  it("are put again by the executor running them once their last put is a day old", async () => {
    // A wait under WF_HOLD_WAIT_MS is held in the process: the run goes on without a park or a resume.
    const rt = await startRuntime(testConfig(nats.server, { WF_HOLD_WAIT_MS: "120000" }));
    onTestFinished(() => rt.stop());
    const yaml = `
name: long-${newId()}
steps:
  - name: hold
    type: wait
    seconds: 60
`;
    const id = await run(rt.platform, yaml, { version: 1 });
    const actor = rt.executor!;
    await waitFor(() => actor.holds(id), { what: "the executor to hold the execution" });
    const kv = await new Kvm(rt.platform.nc).open(definitionsBucket(rt.ns));
    const ref = definitionRef(JSON.stringify(definitionOf(yaml)));
    const revision = async () => (await kv.get(ref))?.revision;
    await waitFor(async () => (await revision()) !== undefined, { what: "the definition stored" });
    const stored = await revision();

    await actor.keepDefinitions(Date.now() + 23 * HOUR_MS);
    expect(await revision()).toBe(stored);
    await actor.keepDefinitions(Date.now() + 25 * HOUR_MS);
    expect(await revision()).toBeGreaterThan(stored!);

    await cancelExecution(rt.platform.js, rt.ns, id);
    expect((await waitForStatus(rt.platform, id)).status).toBe("CANCELLED");
  });
});
