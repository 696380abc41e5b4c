import { describe, expect, it } from "vitest";
import {
  definitionJson,
  definitionsKept,
  parseDefinition,
  sharedDefinition,
  sharedDefinitionOfJson,
} from "./parsed-definitions";

const definition = (output: string) => ({ name: "parsed", steps: [{ name: "a", type: "transform", output }] });

describe("parseDefinition", () => {
  it("shares one frozen workflow between equal definitions read apart, and parses a different one anew", () => {
    const first = parseDefinition(JSON.parse(JSON.stringify(definition("1"))), "o1");
    const again = parseDefinition(JSON.parse(JSON.stringify(definition("1"))), "o1");
    const other = parseDefinition(definition("2"), "o1");
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
      const parsed = parseDefinition(structuredClone(bad), "o1");
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.length).toBeGreaterThan(0);
    }
  });

  it("keeps a bounded amount of parses: a definition pushed out is parsed again, equal but not the same object", () => {
    const first = parseDefinition(definition("first"), "o1");
    // 4 MiB of definitions' JSON after it, in pieces small enough to be kept.
    const filler = "x".repeat(200 * 1024);
    for (let i = 0; i < 22; i++) parseDefinition(definition(`${filler} ${i}`), "o1");
    const again = parseDefinition(definition("first"), "o1");
    expect(again.data).toEqual(first.data);
    expect(again.data).not.toBe(first.data);
  });

  it("keeps another owner's parse through one owner's flood of distinct definitions, bounded all the same", () => {
    const quiet = parseDefinition(definition("quiet"), "quiet");
    // 8 MiB of one owner's distinct definitions, twice the room, in pieces small enough to be kept.
    const filler = "f".repeat(200 * 1024);
    const flood = Array.from({ length: 40 }, (_, i) => parseDefinition(definition(`${filler} ${i}`), "flood"));
    expect(parseDefinition(definition("quiet"), "quiet").data).toBe(quiet.data);
    expect(definitionsKept().chars).toBeLessThanOrEqual(4 * 1024 * 1024);
    // The flood pushed out its own least recently used instead.
    expect(parseDefinition(definition(`${filler} 0`), "flood").data).not.toBe(flood[0]!.data);
  });

  it("parses a definition over 256 KiB of JSON every time rather than keeping it", () => {
    const large = definition("y".repeat(300 * 1024));
    const first = parseDefinition(large, "o1");
    const again = parseDefinition(structuredClone(large), "o1");
    expect(again.data).toEqual(first.data);
    expect(again.data).not.toBe(first.data);
    const small = parseDefinition(definition("small"), "o1");
    expect(parseDefinition(definition("small"), "o1").data).toBe(small.data);
  });
});

describe("sharedDefinition", () => {
  it("gives every equal definition one frozen copy with its JSON kept, and leaves the caller's object alone", () => {
    const given = JSON.parse(JSON.stringify(definition("shared")));
    const shared = sharedDefinition(given, "o1");
    expect(shared).not.toBe(given);
    expect(shared).toEqual(given);
    expect(Object.isFrozen(given)).toBe(false);
    expect(Object.isFrozen((shared as { steps: object[] }).steps[0])).toBe(true);
    expect(sharedDefinition(structuredClone(given), "o1")).toBe(shared);
    expect(sharedDefinition(shared, "o1")).toBe(shared);
    expect(definitionJson(shared)).toBe(JSON.stringify(given));
    expect(parseDefinition(given, "o1").data).toBe(parseDefinition(shared, "o1").data);
  });

  it("gives a definition over 256 KiB of JSON a frozen copy with its JSON, kept for none of the next holders", () => {
    const large = definition("z".repeat(300 * 1024));
    const shared = sharedDefinition(large, "o1");
    expect(shared).not.toBe(large);
    expect(shared).toEqual(large);
    expect(Object.isFrozen(large)).toBe(false);
    expect(Object.isFrozen((shared as { steps: object[] }).steps[0])).toBe(true);
    expect(sharedDefinition(shared, "o1")).toBe(shared);
    expect(definitionJson(shared)).toBe(JSON.stringify(large));
    expect(parseDefinition(shared, "o1").data).toBe(parseDefinition(shared, "o1").data);
    expect(sharedDefinition(structuredClone(large), "o1")).not.toBe(shared);
  });

  it("leaves values that are not objects as they are", () => {
    expect(sharedDefinition(undefined, "o1")).toBeUndefined();
    expect(sharedDefinition("text", "o1")).toBe("text");
    expect(sharedDefinitionOfJson("null", "o1")).toBeNull();
  });
});
