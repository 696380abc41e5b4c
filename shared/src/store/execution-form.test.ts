import { beforeAll, describe, expect, it } from "vitest";
import { useNatsConnection } from "@wf/testing/nats-connection";
import { ExecutionSnapshot, newId, sharedDefinition } from "../execution";
import { sharedValueOf } from "../execution/parsed-definitions";
import { keepJsonText } from "../text/json-texts";
import { NAME_WITHIN_MS } from "../nats/definition-keeping";
import { ONE_REPLICA } from "../nats/placement";
import { definitionRef, StoredDefinitions } from "../nats/stored-definitions";
import { executionForm } from "./execution-form";
import { storedForm, type RecordForm } from "./stored-form";

const stored = storedForm(ExecutionSnapshot);
const nats = useNatsConnection();
let ns: string;
let definitions: StoredDefinitions;
let form: RecordForm;

beforeAll(async () => {
  ns = `f${newId()}`;
  definitions = await StoredDefinitions.open(nats.nc, ns, ONE_REPLICA, { warn: () => undefined }, null);
  form = executionForm(new StoredDefinitions(nats.nc, ns));
});

function snapshot(definition: unknown): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: "e1",
    workflowId: "w1",
    workflowName: "form",
    ownerId: "o1",
    triggerSource: "webhook",
    status: "COMPLETED",
    totalSteps: 1,
    createdAt: 9,
    vars: { who: "x" },
    definition,
    output: { done: true },
    eventSeq: 1,
    outbox: [{ type: "exec_completed", executionId: "e1", workflowId: "w1", ownerId: "o1", at: 12, id: "e1.1" }],
  });
}

/** What the KV store writes for `snap` (with `writer`'s form), read back as the store reads it. */
async function written(
  snap: ExecutionSnapshot,
  writer: RecordForm = form,
): Promise<{ text: string; read: ExecutionSnapshot }> {
  const text = writer.stringify!(writer.compact(stored(snap)));
  return { text, read: ExecutionSnapshot.parse(await form.restore(JSON.parse(text))) };
}

describe("an execution record's JSON", () => {
  const definition = { name: "form", description: 'a "quoted" café', steps: [{ name: "a", type: "transform" }] };

  it("writes a shared definition from its kept JSON, and reads back the record it was", async () => {
    const snap = snapshot(sharedDefinition(structuredClone(definition), "o1"));
    const { text, read } = await written(snap);
    expect(read).toEqual(snapshot(definition));
    expect(text.endsWith(`,"definition":${JSON.stringify(definition)}}`)).toBe(true);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(form.compact(stored(snap)))));
  });

  it("writes an output from the JSON text kept for it, in its step, its event and the record's own, and reads back the record it was", async () => {
    const snap = snapshot(sharedDefinition(structuredClone(definition), "o1"));
    const state = { name: "a", type: "code", status: "COMPLETED", attempts: 1, startedAt: 10, completedAt: 11 };
    const output = { rows: [{ id: 1, note: 'a "quoted" café' }] };
    snap.steps = ExecutionSnapshot.shape.steps.parse({ a: { ...state }, b: { ...state, name: "b", output: [1, 2] } });
    snap.steps.a!.output = output;
    snap.output = output;
    const event = { type: "step_completed", executionId: "e1", workflowId: "w1", ownerId: "o1", at: 11, id: "e1.2" };
    snap.outbox = [...snap.outbox, { ...event, step: "a", data: { status: "COMPLETED", output } }];
    // Spaced as no JSON.stringify writes it: what the record holds shows which text was written.
    const text = '{ "rows": [{ "id": 1, "note": "a \\"quoted\\" café" }] }';
    keepJsonText(output, text);
    const { text: record, read } = await written(snap);
    expect(record.split(`"output":${text}`).length - 1).toBe(3);
    expect(record).toContain('"output":[1,2]');
    expect(JSON.parse(record)).toEqual(JSON.parse(JSON.stringify(form.compact(stored(snap)))));
    expect(read).toEqual({ ...snap, definition });
  });

  it("writes a definition nobody shares as JSON.stringify does", async () => {
    const snap = snapshot(structuredClone(definition));
    const { text, read } = await written(snap);
    expect(text).toBe(JSON.stringify(form.compact(stored(snap))));
    expect(read).toEqual(snap);
  });

  it("names a stored definition by its reference, and reads it back from where it is stored", async () => {
    const mine = { ...definition, name: `stored-${newId()}` };
    const shared = sharedDefinition(structuredClone(mine), "o1");
    const ref = (await definitions.refOf(shared, "o1"))!;
    const snap = snapshot(shared);
    const { text, read } = await written(snap);
    expect(text.endsWith(`,"definitionRef":"${ref}"}`)).toBe(true);
    expect(text).not.toContain('"definition"');
    expect(read).toEqual(snapshot(mine));
    expect(read.definition).toBe(shared);
  });

  it("writes whole a stored definition last put two days ago: it may expire before the record", async () => {
    const mine = { ...definition, name: `put-long-ago-${newId()}` };
    const shared = sharedDefinition(structuredClone(mine), "o1");
    expect(await definitions.refOf(shared, "o1")).not.toBeNull();
    const twoDaysOn = executionForm(new StoredDefinitions(nats.nc, ns, { clock: () => Date.now() + NAME_WITHIN_MS }));
    const { text, read } = await written(snapshot(shared), twoDaysOn);
    expect(text.endsWith(`,"definition":${JSON.stringify(mine)}}`)).toBe(true);
    expect(read).toEqual(snapshot(mine));
  });

  it("writes whole a definition stored in another namespace's bucket only", async () => {
    const elsewhere = await StoredDefinitions.open(
      nats.nc,
      `g${newId()}`,
      ONE_REPLICA,
      { warn: () => undefined },
      null,
    );
    const mine = { ...definition, name: `elsewhere-${newId()}` };
    const shared = sharedDefinition(structuredClone(mine), "o1");
    expect(await elsewhere.refOf(shared, "o1")).not.toBeNull();
    const { text, read } = await written(snapshot(shared));
    expect(text.endsWith(`,"definition":${JSON.stringify(mine)}}`)).toBe(true);
    expect(read).toEqual(snapshot(mine));
  });

  it("names stored variables by their reference beside a named definition, and reads both back", async () => {
    const mine = { ...definition, name: `with-vars-${newId()}` };
    const shared = sharedDefinition(structuredClone(mine), "o1");
    const defRef = (await definitions.refOf(shared, "o1"))!;
    const vars = { text: `many ${newId()}` };
    const named = sharedValueOf(structuredClone(vars), JSON.stringify(vars));
    const varsRef = (await definitions.refOf(named, "o1", "value"))!;
    const snap = { ...snapshot(shared), vars: named };
    const { text, read } = await written(snap);
    expect(text.endsWith(`,"definitionRef":"${defRef}","varsRef":"${varsRef}"}`)).toBe(true);
    expect(text).not.toContain(vars.text);
    expect(read).toEqual({ ...snapshot(mine), vars });
    expect(Object.isFrozen(read.vars)).toBe(true);
  });

  it("reads a record naming variables stored nowhere, with none", async () => {
    const text = JSON.stringify({
      ...(form.compact(stored(snapshot({}))) as Record<string, unknown>),
      vars: undefined,
      varsRef: definitionRef('{"gone":true}'),
    });
    const read = ExecutionSnapshot.parse(await form.restore(JSON.parse(text)));
    expect(read.vars).toEqual({});
    expect(read.definition).toEqual({});
  });

  it("reads a record naming a definition stored nowhere, its definition null", async () => {
    const text = JSON.stringify({
      ...(form.compact(stored(snapshot({}))) as Record<string, unknown>),
      definition: undefined,
      definitionRef: definitionRef("{}"),
    });
    const read = ExecutionSnapshot.parse(await form.restore(JSON.parse(text)));
    expect(read.definition).toBeNull();
    expect(read.output).toEqual({ done: true });
  });
});
