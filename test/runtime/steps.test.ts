import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, startNatsServer, startRuntime, testConfig, waitForStatus, type InProcessRuntime } from "../support/runtime";
import type { NatsServerHandle } from "@wf/shared/testing";

let server: NatsServerHandle;
let rt: InProcessRuntime;

beforeAll(async () => {
  server = await startNatsServer();
  rt = await startRuntime(testConfig(server));
});
afterAll(async () => {
  await rt?.stop();
  await server?.stop();
});

describe("step types", () => {
  it("transform steps see variables and earlier outputs", async () => {
    const id = await run(
      rt.platform,
      `
name: t1
variables:
  who: { type: string, default: world }
  n: { type: number, required: true }
steps:
  - name: a
    type: transform
    output: { greeting: "hello {{ vars.who }}", double: "{{ vars.n * 2 }}" }
  - name: b
    type: transform
    output: "{{ steps.a.output.double + 1 }}"
`,
      { inputs: { n: 20 } },
    );
    const s = await waitForStatus(rt.platform, id);
    expect(s.status).toBe("COMPLETED");
    expect(s.steps.a!.output).toEqual({ greeting: "hello world", double: 40 });
    expect(s.output).toBe(41);
    expect(s.completedSteps).toBe(2);
  });
});
