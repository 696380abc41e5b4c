import { describe, expect, it } from "vitest";
import { deepFreeze } from "../deep-freeze";
import { jsonTextOf, keepJsonText } from "../text/json-texts";
import { SecretMasker, StreamMasker } from "./masker";

function masker(...values: string[]): SecretMasker {
  const m = new SecretMasker();
  m.add(values);
  return m;
}

describe("SecretMasker", () => {
  it("masks every occurrence, the longest value first, and ignores values too short to mask", () => {
    const m = masker("hunter22", "hunter22-extended", "abc");
    expect(m.text("a hunter22-extended and a hunter22, abc")).toBe("a *** and a ***, abc");
  });

  it("masks values and keys inside objects and arrays, in place", () => {
    const m = masker("topsecret");
    const value = { list: ["x topsecret y", 3, null], nested: { topsecret: "topsecret" } };
    const same = m.inPlace(value);
    expect(same).toBe(value);
    expect(value).toEqual({ list: ["x *** y", 3, null], nested: { "***": "***" } });
  });

  it("leaves a frozen (shared) value as it is, and puts a masked copy in its place when it holds a secret", () => {
    const m = masker("topsecret");
    const clean = deepFreeze({ steps: [{ name: "a", output: "fine" }] });
    const leaked = deepFreeze({ steps: [{ name: "a", output: "x topsecret" }], topsecret: 1 });
    const record = { clean, leaked, own: "topsecret" };
    m.inPlace(record);
    expect(record.clean).toBe(clean);
    expect(record.leaked).not.toBe(leaked);
    expect(record).toEqual({ clean, leaked: { steps: [{ name: "a", output: "x ***" }], "***": 1 }, own: "***" });
    expect(leaked.steps[0]!.output).toBe("x topsecret");
  });

  it("forgets the JSON text kept for each object or array it changes and for what holds it, and no other", () => {
    const m = masker("topsecret");
    const value = { outer: { inner: ["x topsecret"], clean: { a: 1 } }, other: { b: 2 }, keyed: { topsecret: 1 } };
    const all = [value, value.outer, value.outer.inner, value.outer.clean, value.other, value.keyed];
    for (const v of all) keepJsonText(v, JSON.stringify(v));
    m.inPlace(value);
    expect(all.map((v) => jsonTextOf(v) !== undefined)).toEqual([false, false, false, true, true, false]);
    expect(jsonTextOf(value.other)).toBe('{"b":2}');
  });

  it("changes nothing while it knows no secret", () => {
    const value = { a: "anything" };
    expect(new SecretMasker().inPlace(value)).toEqual({ a: "anything" });
  });
});

describe("StreamMasker", () => {
  it("masks a secret cut across pieces, holding back only what could start one", () => {
    const s = new StreamMasker(masker("s3cr3tvalue"));
    const shown = [s.push("key: s3c"), s.push("r3tv"), s.push("alue, done s"), s.push("o long"), s.end()];
    expect(shown.join("")).toBe("key: ***, done so long");
    expect(shown[0]).toBe("key: ");
    expect(shown[1]).toBe("");
  });

  it("releases held-back text that turned out not to be a secret", () => {
    const s = new StreamMasker(masker("s3cr3tvalue"));
    expect(s.push("s3c")).toBe("");
    expect(s.push("ond")).toBe("s3cond");
    expect(s.push("s3")).toBe("");
    expect(s.end()).toBe("s3");
  });
});
