import { describe, expect, it } from "vitest";
import { SecretMasker } from "@wf/shared/secrets";
import { KnownJson } from "./known-json";

describe("KnownJson", () => {
  it("gives an object's or an array's kept text back, and never a string's", () => {
    const known = new KnownJson(new SecretMasker());
    const [record, list] = [{ a: 1 }, [1, "two"]];
    known.keep(record, '{"a":1}');
    known.keep(list, '[1,"two"]');
    known.keep("text", '"text"');
    expect(known.textOf(record)).toBe('{"a":1}');
    expect(known.textOf(list)).toBe('[1,"two"]');
    expect(known.textOf({ a: 1 })).toBeUndefined();
    expect(known.textOf("text")).toBeUndefined();
  });

  it("keeps no text while the run knows a secret, and gives none back once it learns one", () => {
    const masker = new SecretMasker();
    const known = new KnownJson(masker);
    const before = { note: "later-secret-value" };
    known.keep(before, JSON.stringify(before));
    masker.add(["later-secret-value"]);
    // The masker may now rewrite the value in place: the text kept would still hold the secret.
    expect(known.textOf(before)).toBeUndefined();
    const after = { note: "x" };
    known.keep(after, JSON.stringify(after));
    expect(known.textOf(after)).toBeUndefined();
  });
});
