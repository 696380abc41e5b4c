import { describe, expect, it } from "vitest";
import { PALETTE_TYPES, paletteName } from "./step-types";

describe("paletteName", () => {
  it("names each palette item with the article its label is said with", () => {
    const whole = (type: (typeof PALETTE_TYPES)[number]) => Object.values(paletteName(type)).join("");
    expect(PALETTE_TYPES.map(whole)).toEqual([
      "Add a Code step",
      "Add an LLM step",
      "Add an Agent step",
      "Add a Transform step",
      "Add a For each step",
      "Add a Parallel step",
      "Add a Wait step",
      "Add a Sub-workflow step",
    ]);
  });
});
