import { Kvm } from "@nats-io/kv";
import type { Msg } from "@nats-io/nats-core";
import { describe, expect, it, onTestFinished } from "vitest";
import { definitionsBucket, subjects } from "@wf/shared/nats";
import { waitFor } from "../support/runtime";
import { account, call, ended, storeWorkflow, useApi } from "./support";

/**
 * Starts whose records are large: a workflow whose definition is over 256 KiB of JSON (long prompts, code), and
 * inputs too large for the record (max_payload, 1 MB here as by default, less the room kept for the execution's
 * output and events) to hold beside the steps' results.
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

/** A start of a stored workflow through the API, as its client sends it. */
function start(key: string, workflowId: string, body: unknown) {
  return call(api(), "POST", `/api/v1/workflows/${workflowId}/executions`, { key, body });
}

/**
 * Its definition is named by reference in start commands and records, as a smaller one's is, rather than carried whole
 * at every write: whole, it took the record's room from the steps' results.
 */
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
    for (const n of [1, 2]) {
      const r = await start(me.key, w.id, {});
      expect(r.statusCode).toBe(202);
      const id = r.json<{ executionId: string }>().executionId;
      const view = await ended(env, me, id);
      expect({ n, status: view.status, error: view.error }).toEqual({ n, status: "COMPLETED", error: null });
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

describe("inputs too large for the execution's record", () => {
  it("are refused at the start (413, naming the inputs and the room), not failed at the first step", async () => {
    const env = api();
    const me = await account(env, { plan: "pro" });
    const w = await storeWorkflow(
      env,
      me.user.id,
      `name: inputs\nvariables:\n  text: { type: string }\nsteps:\n  - { name: a, type: transform, output: "{{ vars.text.length }}" }\n`,
    );
    const records = seen(`$KV.${env.ns}_executions.>`);
    // 700 KB: more than the record's 630,784 bytes of room; 1,048,000: a start command over max_payload (a 500 before).
    for (const chars of [700 * 1024, 1_048_000]) {
      const r = await start(me.key, w.id, { inputs: { text: "y".repeat(chars) } });
      expect([r.statusCode, r.json<{ code: string }>().code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
      expect(r.json<{ error: string }>().error).toMatch(
        /^inputs: the execution would start with \d+ bytes in its record, over the 630784 its record has for its inputs, its definition and its steps' results \(a share of the NATS server's max_payload, 1048576\); pass large data by reference/,
      );
    }
    const listed = await call(env, "GET", `/api/v1/executions?workflowId=${w.id}`, { key: me.key });
    expect(listed.json()).toMatchObject({ items: [], total: 0 });
    expect(records).toEqual([]);
    // 500 KB leaves the steps room: it runs.
    const r = await start(me.key, w.id, { inputs: { text: "y".repeat(500 * 1024) } });
    expect(r.statusCode).toBe(202);
    const view = await ended(env, me, r.json<{ executionId: string }>().executionId);
    expect(view.status).toBe("COMPLETED");
  });
});

/**
 * A run that writes its record again (a step that acts outside, a park) names its large variables by reference from
 * its second write on, rather than writing them whole at each: a foreach of such steps wrote them at every step.
 */
describe("large inputs of a run that writes its record more than once", () => {
  const yaml = `name: many-writes
variables:
  text: { type: string }
steps:
  - name: each
    type: foreach
    items: [1, 2, 3]
    steps:
      - { name: count, type: code, language: bash, code: "echo \${#WF_VAR_text}" }
  - { name: length, type: code, language: javascript, code: "return vars.text.length" }
`;

  it("are written whole once, then named, and read back whole", async () => {
    const env = api();
    const me = await account(env, { plan: "pro" });
    const w = await storeWorkflow(env, me.user.id, yaml);
    const records = seen(`$KV.${env.ns}_executions.>`);
    // Under the kernel's 128 KiB for an environment variable, which a process step's WF_VAR_text is.
    const text = "z".repeat(100 * 1024);
    const r = await start(me.key, w.id, { inputs: { text } });
    expect(r.statusCode).toBe(202);
    const id = r.json<{ executionId: string }>().executionId;
    const view = await ended(env, me, id);
    expect({ status: view.status, error: view.error }).toEqual({ status: "COMPLETED", error: null });
    const result = await call(env, "GET", `/api/v1/executions/${id}/result`, { key: me.key });
    expect(result.json<{ output: unknown }>().output).toBe(text.length);
    // Each step saw the variables whole.
    const outputs = (await env.platform.store.executions.get(id))!.value.steps;
    expect([0, 1, 2].map((i) => String(outputs[`each[${i}].count`]?.output).trim())).toEqual([
      "102400",
      "102400",
      "102400",
    ]);

    const mine = records.filter((json) => json.includes(id));
    // Three steps' starts, each carrying the result before it, and the end.
    expect(mine.length).toBeGreaterThanOrEqual(4);
    expect(mine[0]).toContain(text);
    for (const later of mine.slice(1)) {
      expect(later).toContain('"varsRef":');
      expect(later).not.toContain(text);
    }
    // A reader of the record (another process's store) finds them by the reference.
    const written = JSON.parse(mine.at(-1)!) as { varsRef: string };
    const stored = await new Kvm(env.platform.nc).open(definitionsBucket(env.ns));
    expect((await stored.get(written.varsRef))?.json()).toEqual({ text });
  });

  it("are read back by the reference when a run parked on an approval is resumed", async () => {
    const env = api();
    const me = await account(env, { plan: "pro" });
    const w = await storeWorkflow(
      env,
      me.user.id,
      `name: gated
variables:
  text: { type: string }
steps:
  - { name: gate, type: transform, output: go, manual_approval: { message: go?, timeout: 600 } }
  - { name: length, type: code, language: javascript, code: "return vars.text.length" }
`,
    );
    const records = seen(`$KV.${env.ns}_executions.>`);
    const text = "g".repeat(300 * 1024);
    const id = (await start(me.key, w.id, { inputs: { text } })).json<{ executionId: string }>().executionId;
    const approvals = await waitFor(async () => {
      const listed = await call(env, "GET", `/api/v1/approvals/execution/${id}`, { key: me.key });
      return listed.json<{ approvals: { id: string }[] }>().approvals[0];
    });
    const parked = await waitFor(() =>
      records
        .map((json) => JSON.parse(json) as { id: string; status: string })
        .find((r) => r.id === id && r.status === "AWAITING_APPROVAL"),
    );
    expect(parked).toMatchObject({ varsRef: expect.any(String) });
    expect(parked).not.toHaveProperty("vars");
    const approved = await call(env, "POST", `/api/v1/approvals/${approvals.id}/approve`, { key: me.key, body: {} });
    expect(approved.statusCode).toBe(200);
    expect((await ended(env, me, id)).status).toBe("COMPLETED");
    const result = await call(env, "GET", `/api/v1/executions/${id}/result`, { key: me.key });
    expect(result.json<{ output: unknown }>().output).toBe(text.length);
  });

  it("are written whole at every write while small", async () => {
    const env = api();
    const me = await account(env, { plan: "pro" });
    const w = await storeWorkflow(env, me.user.id, yaml);
    const records = seen(`$KV.${env.ns}_executions.>`);
    const text = "s".repeat(1024);
    const r = await start(me.key, w.id, { inputs: { text } });
    const id = r.json<{ executionId: string }>().executionId;
    expect((await ended(env, me, id)).status).toBe("COMPLETED");
    const mine = records.filter((json) => json.includes(id));
    expect(mine.length).toBeGreaterThanOrEqual(4);
    for (const written of mine) {
      expect(written).toContain(text);
      expect(written).not.toContain('"varsRef":');
    }
  });
});
