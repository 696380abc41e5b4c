import { describe, expect, it } from "vitest";
import { validated } from "./validation";

const VALID = "name: one\nsteps:\n  - { name: a, type: wait, seconds: 1 }\n";

describe("validated", () => {
  it("answers the same result again for the same text, and validates another text afresh", () => {
    const first = validated(VALID);
    expect(first.ok).toBe(true);
    expect(validated(VALID)).toBe(first);
    const broken = validated(VALID.replace("type: wait", "type: waitx"));
    expect(broken.ok).toBe(false);
    expect(validated(VALID)).not.toBe(first);
    expect(validated(VALID).ok).toBe(true);
  });
});
