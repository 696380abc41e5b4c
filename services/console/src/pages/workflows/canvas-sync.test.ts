import { describe, expect, it } from "vitest";
import { graph } from "@wf/shared/canvas";
import { shownGraph } from "./canvas-sync";

const VALID = "name: x\nsteps:\n  - { name: a, type: wait, seconds: 1 }\n  - { name: b, type: wait, seconds: 1 }\n";

describe("shownGraph", () => {
  it("draws a valid text as it is", () => {
    const g = graph(VALID);
    expect(shownGraph(g, g)).toBe(g);
  });

  it("keeps the last valid graph while the text is not valid, with the problems on its steps", () => {
    const good = graph(VALID);
    const broken = graph(VALID.replace("name: b, type: wait", "name: b, type: wiat").replace("name: a,", "name: a2,"));
    const shown = shownGraph(broken, good);
    expect(shown.nodes.map((n) => n.id)).toEqual(["a", "b"]);
    expect(shown.issues.map((i) => i.node)).toEqual(["b"]);
    expect(shown.issues[0]?.message).toMatch(/wiat/);
    const renamed = graph(
      VALID.replace("name: a,", "name: a2,").replace(
        "type: wait, seconds: 1 }\n  - ",
        "type: wiat, seconds: 1 }\n  - ",
      ),
    );
    expect(shownGraph(renamed, good).issues.map((i) => i.node)).toEqual([undefined]);
  });

  it("draws what it could read of a text that was never valid", () => {
    const broken = graph("name: x\nsteps:\n  - { name: a, type: wiat }\n");
    expect(shownGraph(broken, null)).toBe(broken);
  });
});
