import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { useNatsConnection } from "@wf/testing/nats-connection";
import { newId } from "../execution/ids";
import { definitionJson, sharedDefinition } from "../execution/parsed-definitions";
import { nanos } from "@nats-io/nats-core";
import { NAME_WITHIN_MS, REFRESH_AFTER_MS } from "./definition-keeping";
import { ONE_REPLICA } from "./placement";
import { definitionRef, definitionsBucket, startDefinition, StoredDefinitions } from "./stored-definitions";

const nats = useNatsConnection();

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A clock `ms` ahead of this one. */
function later(ms: number): () => number {
  return () => Date.now() + ms;
}

/** A definition no other test has: the table of definitions read by reference is the process's. */
function definition(): Record<string, unknown> {
  return { name: `wf-${newId()}`, steps: [{ name: "a", type: "code", language: "javascript", code: "return 1 // é" }] };
}

/** A namespace whose starter stores definitions. */
async function starter(): Promise<{ ns: string; stored: StoredDefinitions; writes: () => Promise<number> }> {
  const ns = `d${newId()}`;
  const warnings: unknown[] = [];
  const stored = await StoredDefinitions.open(nats.nc, ns, ONE_REPLICA, { warn: (...a) => warnings.push(a) }, null);
  const jsm = await jetstreamManager(nats.nc);
  const writes = async () => (await jsm.streams.info(`KV_${definitionsBucket(ns)}`)).state.last_seq;
  return { ns, stored, writes };
}

describe("StoredDefinitions", () => {
  it("stores a shared definition once, under the SHA-256 of its JSON, and names it by that", async () => {
    const { ns, stored, writes } = await starter();
    const shared = sharedDefinition(definition(), "o1");
    const json = definitionJson(shared);
    const ref = await stored.refOf(shared, "o1");
    expect(ref).toBe(definitionRef(json));
    expect(ref).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await stored.refOf(shared, "o1")).toBe(ref);
    expect(await writes()).toBe(1);
    const kv = await new Kvm(nats.nc).open(definitionsBucket(ns));
    expect((await kv.get(ref!))?.string()).toBe(json);
    // Another starter (another edge) finds it stored: nothing is written again.
    const other = await StoredDefinitions.open(nats.nc, ns, ONE_REPLICA, { warn: () => undefined }, null);
    expect(await other.refOf(sharedDefinition(JSON.parse(json), "o2"), "o2")).toBe(ref);
    expect(await writes()).toBe(1);
  });

  it("names no definition that is not shared: its command carries it", async () => {
    const { stored, writes } = await starter();
    expect(await stored.refOf(definition(), "o1")).toBeNull();
    expect(await writes()).toBe(0);
  });

  it("reads what another process stored, shared and frozen, and only what its reference names", async () => {
    const { ns } = await starter();
    const kv = await new Kvm(nats.nc).open(definitionsBucket(ns));
    const json = JSON.stringify(definition());
    const ref = definitionRef(json);
    await kv.put(ref, json);
    const tampered = definitionRef(JSON.stringify(definition()));
    await kv.put(tampered, json);

    const reader = new StoredDefinitions(nats.nc, ns);
    const read = await reader.get(ref, "o1");
    expect(read).toEqual(JSON.parse(json));
    expect(Object.isFrozen(read)).toBe(true);
    expect(definitionJson(read)).toBe(json);
    expect(await reader.get(tampered, "o1")).toBeNull();
    expect(await reader.get(definitionRef("{}"), "o1")).toBeNull();
    expect(await reader.get("not a reference", "o1")).toBeNull();
  });

  it("keeps an owner's definitions while another owner's many push out only their own", async () => {
    const { ns, stored } = await starter();
    const kv = await new Kvm(nats.nc).open(definitionsBucket(ns));
    const json = JSON.stringify(definition());
    const ref = definitionRef(json);
    await kv.put(ref, json);
    const reader = new StoredDefinitions(nats.nc, ns);
    const mine = await reader.get(ref, "quiet");
    // Read from here on only if still held: its entry in the bucket is gone.
    await kv.purge(ref);
    for (let i = 0; i < 1_100; i++) await stored.refOf(sharedDefinition(definition(), "o1"), "busy");
    expect(await reader.get(ref, "quiet")).toBe(mine);
  });

  it("finds nothing in a namespace where no starter made the bucket", async () => {
    const reader = new StoredDefinitions(nats.nc, `d${newId()}`);
    expect(await reader.get(definitionRef(JSON.stringify(definition())), "o1")).toBeNull();
  });

  it("names nothing when it cannot store, and says why", async () => {
    const closed = await connect({ servers: nats.server.url });
    const warnings: string[] = [];
    const stored = new StoredDefinitions(closed, `d${newId()}`, {
      writer: { placement: ONE_REPLICA, retentionMs: null },
      log: { warn: (message) => warnings.push(message) },
    });
    await closed.close();
    expect(await stored.refOf(sharedDefinition(definition(), "o1"), "o1")).toBeNull();
    expect(warnings).toEqual(["could not store a workflow definition: its start commands carry it"]);
  });
});

describe("StoredDefinitions, kept while named", () => {
  it("puts a definition again before naming it once its last put is a day old, and not before", async () => {
    const { ns, stored, writes } = await starter();
    const shared = sharedDefinition(definition(), "o1");
    const ref = await stored.refOf(shared, "o1");
    expect(await writes()).toBe(1);
    const at = (ms: number) =>
      StoredDefinitions.open(nats.nc, ns, ONE_REPLICA, { warn: () => undefined }, null, later(ms));
    expect(await (await at(REFRESH_AFTER_MS - HOUR_MS)).refOf(shared, "o1")).toBe(ref);
    expect(await writes()).toBe(1);
    const dayOn = await at(REFRESH_AFTER_MS + HOUR_MS);
    expect(await dayOn.refOf(shared, "o1")).toBe(ref);
    expect(await writes()).toBe(2);
    // Fresh again by that clock.
    expect(await dayOn.refOf(shared, "o1")).toBe(ref);
    expect(await writes()).toBe(2);
  });

  it("lets a record name a definition only while its last put is under two days old", async () => {
    const { ns, stored } = await starter();
    const shared = sharedDefinition(definition(), "o1");
    const ref = await stored.refOf(shared, "o1");
    const reader = (ms: number) => new StoredDefinitions(nats.nc, ns, { clock: later(ms) });
    expect(reader(NAME_WITHIN_MS - HOUR_MS).storedRef(shared)).toBe(ref);
    expect(reader(NAME_WITHIN_MS + HOUR_MS).storedRef(shared)).toBeUndefined();
  });

  it("refreshes only a definition it knows stored, once its last put is a day old", async () => {
    const { stored, writes } = await starter();
    const shared = sharedDefinition(definition(), "o1");
    await stored.refOf(shared, "o1");
    await stored.refresh(shared, "o1", Date.now() + REFRESH_AFTER_MS - HOUR_MS);
    await stored.refresh(sharedDefinition(definition(), "o1"), "o1", Date.now() + 2 * DAY_MS);
    await stored.refresh(definition(), "o1", Date.now() + 2 * DAY_MS);
    expect(await writes()).toBe(1);
    await stored.refresh(shared, "o1", Date.now() + REFRESH_AFTER_MS + HOUR_MS);
    expect(await writes()).toBe(2);
  });

  it("expires entries three days past the retention, or never with retention off", async () => {
    const jsm = await jetstreamManager(nats.nc);
    const maxAge = async (ns: string) => (await jsm.streams.info(`KV_${definitionsBucket(ns)}`)).config.max_age;
    const kept = `d${newId()}`;
    await StoredDefinitions.open(nats.nc, kept, ONE_REPLICA, { warn: () => undefined }, null);
    expect(await maxAge(kept)).toBe(0);
    const expiring = `d${newId()}`;
    await StoredDefinitions.open(nats.nc, expiring, ONE_REPLICA, { warn: () => undefined }, 30 * DAY_MS);
    expect(await maxAge(expiring)).toBe(nanos(33 * DAY_MS));
  });

  it("puts every entry again before a bucket that kept them for good starts to expire them", async () => {
    const { ns, stored, writes } = await starter();
    const shared = sharedDefinition(definition(), "o1");
    const ref = (await stored.refOf(shared, "o1"))!;
    await stored.refOf(sharedDefinition(definition(), "o1"), "o1");
    expect(await writes()).toBe(2);
    await StoredDefinitions.open(nats.nc, ns, ONE_REPLICA, { warn: () => undefined }, 7 * DAY_MS);
    expect(await writes()).toBe(4);
    const kv = await new Kvm(nats.nc).open(definitionsBucket(ns));
    expect((await kv.get(ref))?.string()).toBe(definitionJson(shared));
    // Expiring already: nothing to put again.
    await StoredDefinitions.open(nats.nc, ns, ONE_REPLICA, { warn: () => undefined }, 7 * DAY_MS);
    expect(await writes()).toBe(4);
  });
});

describe("startDefinition", () => {
  it("is the definition a command carries, the one it names, or none when it has neither", async () => {
    const { stored } = await starter();
    const shared = sharedDefinition(definition(), "o1");
    const ref = (await stored.refOf(shared, "o1"))!;
    const carried = definition();
    expect(await startDefinition({ ownerId: "o1", definition: carried }, stored)).toBe(carried);
    expect(await startDefinition({ ownerId: "o1", definitionRef: ref }, stored)).toBe(shared);
    expect(await startDefinition({ ownerId: "o1" }, stored)).toBeUndefined();
  });
});
