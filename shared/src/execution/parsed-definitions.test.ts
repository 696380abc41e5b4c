import { describe, expect, it } from "vitest";
import { definitionJson, parseDefinition, sharedDefinition, sharedDefinitionOfJson } from "./parsed-definitions";

const definition = (output: string) => ({ name: "parsed", steps: [{ name: "a", type: "transform", output }] });

describe("parseDefinition", () => {
  it("shares one frozen workflow between equal definitions read apart, and parses a different one anew", () => {
    const first = parseDefinition(JSON.parse(JSON.stringify(definition("1"))));
    const again = parseDefinition(JSON.parse(JSON.stringify(definition("1"))));
    const other = parseDefinition(definition("2"));
    expect(first.success && again.success && other.success).toBe(true);
    expect(again.data).toBe(first.data);
    expect(other.data).not.toBe(first.data);
    expect(other.data?.steps[0]).toMatchObject({ name: "a", output: "2" });
    // Shared, so never changed: a write throws rather than reaching another execution.
    expect(() => {
      (first.data!.steps as unknown[]).push({});
    }).toThrow(TypeError);
    expect(Object.isFrozen(first.data!.steps[0])).toBe(true);
  });

  it("reports an invalid definition each time it is asked, with its problems", () => {
    const bad = { name: "bad", steps: [{ name: "a", type: "no-such-type" }] };
    for (let i = 0; i < 2; i++) {
      const parsed = parseDefinition(structuredClone(bad));
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.length).toBeGreaterThan(0);
    }
  });

  it("keeps a bounded amount of parses: a definition pushed out is parsed again, equal but not the same object", () => {
    const first = parseDefinition(definition("first"));
    // 4 MiB of definitions' JSON after it, in pieces small enough to be kept.
    const filler = "x".repeat(200 * 1024);
    for (let i = 0; i < 22; i++) parseDefinition(definition(`${filler} ${i}`));
    const again = parseDefinition(definition("first"));
    expect(again.data).toEqual(first.data);
    expect(again.data).not.toBe(first.data);
  });

  it("parses a definition over 256 KiB of JSON every time rather than keeping it", () => {
    const large = definition("y".repeat(300 * 1024));
    const first = parseDefinition(large);
    const again = parseDefinition(structuredClone(large));
    expect(again.data).toEqual(first.data);
    expect(again.data).not.toBe(first.data);
    const small = parseDefinition(definition("small"));
    expect(parseDefinition(definition("small")).data).toBe(small.data);
  });
});

describe("sharedDefinition", () => {
  it("gives every equal definition one frozen copy with its JSON kept, and leaves the caller's object alone", () => {
    const given = JSON.parse(JSON.stringify(definition("shared")));
    const shared = sharedDefinition(given);
    expect(shared).not.toBe(given);
    expect(shared).toEqual(given);
    expect(Object.isFrozen(given)).toBe(false);
    expect(Object.isFrozen((shared as { steps: object[] }).steps[0])).toBe(true);
    expect(sharedDefinition(structuredClone(given))).toBe(shared);
    expect(sharedDefinition(shared)).toBe(shared);
    expect(definitionJson(shared)).toBe(JSON.stringify(given));
    expect(parseDefinition(given).data).toBe(parseDefinition(shared).data);
  });

  it("gives a definition over 256 KiB of JSON a frozen copy with its JSON, kept for none of the next holders", () => {
    const large = definition("z".repeat(300 * 1024));
    const shared = sharedDefinition(large);
    expect(shared).not.toBe(large);
    expect(shared).toEqual(large);
    expect(Object.isFrozen(large)).toBe(false);
    expect(Object.isFrozen((shared as { steps: object[] }).steps[0])).toBe(true);
    expect(sharedDefinition(shared)).toBe(shared);
    expect(definitionJson(shared)).toBe(JSON.stringify(large));
    expect(parseDefinition(shared).data).toBe(parseDefinition(shared).data);
    expect(sharedDefinition(structuredClone(large))).not.toBe(shared);
  });

  it("leaves values that are not objects as they are", () => {
    expect(sharedDefinition(undefined)).toBeUndefined();
    expect(sharedDefinition("text")).toBe("text");
    expect(sharedDefinitionOfJson("null")).toBeNull();
  });
});
