import type { Msg } from "@nats-io/nats-core";
import { describe, expect, it, onTestFinished } from "vitest";
import { subjects } from "@wf/shared/nats";
import { account, call, ended, storeWorkflow, useApi } from "./support";

/**
 * A workflow whose definition is over 256 KiB of JSON (long prompts, code): its start commands and its execution's
 * record name the definition by reference, as they do a smaller one's, rather than carry it whole at every write.
 * Carried whole, it took the record's room from the steps' results (max_payload, 1 MB here as by default).
 */
const api = useApi({ runtime: true });

/** Every message on `subject` (a filter) while the test runs, as text. */
function seen(subject: string): string[] {
  const texts: string[] = [];
  const sub = api().platform.nc.subscribe(subject, {
    callback: (_err: unknown, m: Msg) => {
      if (m.data.length > 0) texts.push(m.string());
    },
  });
  onTestFinished(() => sub.unsubscribe());
  return texts;
}

describe("a workflow whose definition is over 256 KiB", () => {
  it("is named by reference in its start commands and records, leaving the record's room to its results", async () => {
    const env = api();
    const me = await account(env, { plan: "pro" });
    const commands = seen(subjects(env.ns).execStartAll);
    const records = seen(`$KV.${env.ns}_executions.>`);
    // Step a's result is as long as the definition: the record holds it (cut to a quarter of max_payload) beside the
    // definition's 450 KB, which it had no room for.
    const text = "x".repeat(450 * 1024);
    const w = await storeWorkflow(
      env,
      me.user.id,
      `name: large\nsteps:\n  - { name: a, type: transform, output: "${text}" }\n  - { name: b, type: transform, output: done }\n`,
    );
    // The first start reads the workflow afresh, the second from the edge's shared copy.
    for (const start of [1, 2]) {
      const r = await call(env, "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key, body: {} });
      expect(r.statusCode).toBe(202);
      const id = r.json<{ executionId: string }>().executionId;
      const view = await ended(env, me, id);
      expect({ start, status: view.status, error: view.error }).toEqual({ start, status: "COMPLETED", error: null });
      const result = await call(env, "GET", `/api/v1/executions/${id}/result`, { key: me.key });
      expect(result.json<{ output: unknown }>().output).toBe("done");
    }
    expect(commands).toHaveLength(2);
    expect(records.length).toBeGreaterThanOrEqual(2);
    for (const written of [...commands, ...records]) {
      expect(written).toContain('"definitionRef":');
      expect(written).not.toContain('"definition":');
      expect(written.length).toBeLessThan(text.length);
    }
  });
});
