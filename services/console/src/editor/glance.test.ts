import { describe, expect, it } from "vitest";
import { glance } from "./glance";

describe("glance, a value shown on hover", () => {
  it("is the value as indented JSON when short", () => {
    expect(glance({ id: "a1", n: [1] })).toBe('{\n  "id": "a1",\n  "n": [\n    1\n  ]\n}');
    expect(glance(undefined)).toBe("undefined");
  });

  it("cuts long values and lines, saying how much is left", () => {
    const shown = glance(Array.from({ length: 30 }, (_, i) => i)).split("\n");
    expect(shown).toHaveLength(17);
    expect(shown.at(-1)).toBe("… 16 more lines");
    expect(glance("x".repeat(300))).toBe(`"${"x".repeat(98)}…`);
  });
});
