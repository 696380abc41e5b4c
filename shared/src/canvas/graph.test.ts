import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { graph, nodeAt, rangeOf, type CanvasGraph } from "./index";

const fixture = readFileSync(new URL("../workflow/fixtures/example.yaml", import.meta.url), "utf8");

const ids = (g: CanvasGraph, kind?: string): string[] =>
  g.edges.filter((e) => kind === undefined || e.kind === kind).map((e) => `${e.from}->${e.to}`);

describe("graph of the reference example", () => {
  const g = graph(fixture);

  it("has a node per step, nested ones included, named by their step names", () => {
    expect(g.issues).toEqual([]);
    expect(g.nodes.map((n) => [n.id, n.type, n.group ?? "-", n.index])).toEqual([
      ["fetch", "code", "-", 0],
      ["classify", "agent", "-", 1],
      ["summary", "llm", "-", 2],
      ["apply", "code", "-", 3],
      ["each", "foreach", "-", 4],
      ["echo", "code", "each", 0],
      ["both", "parallel", "-", 5],
      ["l1", "transform", "both/left", 0],
      ["r1", "wait", "both/right", 0],
      ["pause", "wait", "-", 6],
      ["child", "workflow", "-", 7],
      ["result", "transform", "-", 8],
    ]);
    expect(g.nodes.find((n) => n.id === "r1")?.list).toEqual({ parent: "both", branch: "right" });
    expect(g.agents).toEqual(["support"]);
  });

  it("groups a foreach's steps and a parallel's branches", () => {
    expect(g.groups.map((gr) => [gr.id, gr.kind, gr.owner, gr.parent ?? "-", gr.children, gr.branches])).toEqual([
      ["each", "foreach", "each", "-", ["echo"], []],
      ["both", "parallel", "both", "-", [], ["both/left", "both/right"]],
      ["both/left", "branch", "both", "both", ["l1"], []],
      ["both/right", "branch", "both", "both", ["r1"], []],
    ]);
  });

  it("links steps in order, into and out of containers, and by the data they read", () => {
    expect(ids(g, "sequence")).toEqual([
      "fetch->classify",
      "classify->summary",
      "summary->apply",
      "apply->each",
      "each->both",
      "both->pause",
      "pause->child",
      "child->result",
    ]);
    expect(ids(g, "enter")).toEqual(["each->echo", "both->l1", "both->r1"]);
    expect(ids(g, "exit")).toEqual(["echo->each", "l1->both", "r1->both"]);
    expect(ids(g, "data")).toEqual([
      "fetch->classify",
      "classify->summary",
      "fetch->apply",
      "fetch->each",
      "apply->result",
    ]);
  });

  it("badges modifiers, and puts the workflow's triggers on its first step", () => {
    const badges = (id: string): string[] =>
      g.nodes.find((n) => n.id === id)?.badges.map((b) => `${b.kind}: ${b.label}`) ?? [];
    expect(badges("apply")).toEqual([
      "condition: if vars.dry_run = false",
      "retry: retry ×3",
      "manual_approval: approval",
    ]);
    expect(badges("fetch")).toEqual([
      "timeout: timeout 10s",
      "trigger: schedule */15 * * * *",
      "trigger: after 01jz8f3k2m4n6p8r0s2t4v6w8y",
    ]);
    const approval = g.nodes.find((n) => n.id === "apply")?.badges[2]?.range;
    expect(fixture.slice(approval?.start, approval?.end)).toMatch(
      /^manual_approval: # modifier: pause for a decision first\n[\s\S]*editable: true \}$/,
    );
  });

  it("maps the cursor to the innermost step and a step to its text", () => {
    const echo = rangeOf(g, "echo");
    expect(fixture.slice(echo?.start, echo?.end)).toMatch(/^- name: echo\n[\s\S]*\$WF_ITEM_id\}"\n$/);
    expect(echo?.startLine).toBe(70);
    expect(nodeAt(g, fixture, fixture.indexOf("$WF_ITEM_id"))).toBe("echo");
    expect(nodeAt(g, fixture, fixture.indexOf("concurrency: 4"))).toBe("each");
    expect(nodeAt(g, fixture, fixture.indexOf("r1"))).toBe("r1");
    expect(nodeAt(g, fixture, fixture.indexOf("ticket_id: { type"))).toBeUndefined();
    expect(rangeOf(g, "nope")).toBeUndefined();
  });
});

describe("graph details", () => {
  it("takes a cursor after a step's last value on its line, past a comment there, as in the step", () => {
    const text = `name: tail
steps:
  - name: fetch
    type: wait
    seconds: 1   # a while
  # the report, last
  - name: each
    type: foreach
    items: [1]
    steps:
      - { name: show, type: wait, seconds: 1 }   # inner
  - name: report
    type: transform
    output: { rows: 1 }   # the end
`;
    const g = graph(text);
    const lineEnd = (line: string) => text.indexOf(line) + line.length;
    expect(nodeAt(g, text, lineEnd("seconds: 1   # a while"))).toBe("fetch");
    expect(nodeAt(g, text, lineEnd("  # the report, last"))).toBeUndefined();
    expect(nodeAt(g, text, lineEnd("seconds: 1 }   # inner"))).toBe("show");
    expect(nodeAt(g, text, lineEnd("# the end"))).toBe("report");
    expect(nodeAt(g, text, text.indexOf("# the end"))).toBe("report");
  });

  it("reads references in templates and conditions only, in both JSONata spellings", () => {
    const g = graph(`name: refs
agents:
  - name: a
    model: m
    instructions: "Know {{ steps.first.output }}"
steps:
  - name: first
    type: wait
    seconds: 1
  - name: my-step
    type: transform
    description: reads steps.first, but this is prose
    output: "{{ steps.first.output }} and {{ $steps.first }} and {{ item.steps.first }}; steps.first outside"
  - name: last
    type: transform
    condition: steps.\`my-step\`.status = 'COMPLETED' and steps.ghost.status = 'FAILED'
    output: "{{ steps.\`my-step\`.output }}"
`);
    expect(g.references.map((r) => [r.name, r.target ?? "-", r.holder ?? "-", r.field])).toEqual([
      ["first", "first", "-", "agents[0].instructions"],
      ["first", "first", "my-step", "steps[1].output"],
      ["my-step", "my-step", "last", "steps[2].condition"],
      ["ghost", "-", "last", "steps[2].condition"],
      ["my-step", "my-step", "last", "steps[2].output"],
    ]);
    expect(ids(g, "data")).toEqual(["first->my-step", "my-step->last"]);
  });

  it("gives steps without a usable name their path, and ties issues to steps (a duplicate name to both)", () => {
    const g = graph(`name: dupes
steps:
  - name: a
    type: wait
    seconds: 1
  - name: a
    type: wait
    seconds: 1
  - type: wait
    seconds: -1
`);
    expect(g.nodes.map((n) => n.id)).toEqual(["a", "steps[1]", "steps[2]"]);
    expect(g.issues.map((i) => [i.path, i.node, i.other])).toEqual([
      ["steps[1].name", "steps[1]", "a"],
      ["steps[2].name", "steps[2]", undefined],
      ["steps[2].seconds", "steps[2]", undefined],
    ]);
  });

  it("still shows what it can read of broken YAML, with the problems", () => {
    const g = graph(`name: broken
steps:
  - name: fine
    type: wait
    seconds: 1
  - name: bad
    type: transform
    output: { unclosed: [1, 2
`);
    expect(g.nodes.map((n) => n.id)).toContain("fine");
    expect(g.issues.length).toBeGreaterThan(0);
    expect(g.issues[0]?.message).toMatch(/YAML syntax error/);
    expect(graph("").issues.map((i) => i.message)).toEqual([
      "the file is empty: a workflow needs at least `name` and `steps`",
    ]);
    expect(graph("- just\n- a list\n").nodes).toEqual([]);
  });

  it("gives each step the comment lines indented with it", () => {
    const text = `name: comments
steps:
  # leads a
  - name: a
    type: wait
    seconds: 1
    # trails a: indented under it

  # leads b
  - name: b
    type: wait
    seconds: 1
    # trails b
  # leads c
  - name: c
    type: wait
    seconds: 1
# not c's: at the list's parent column
`;
    const g = graph(text);
    const block = (id: string): string => {
      const node = g.nodes.find((n) => n.id === id);
      return text.slice(node?.block.start, node?.block.end);
    };
    expect(block("a")).toBe(
      "  # leads a\n  - name: a\n    type: wait\n    seconds: 1\n    # trails a: indented under it\n",
    );
    expect(block("b")).toBe("  # leads b\n  - name: b\n    type: wait\n    seconds: 1\n    # trails b\n");
    expect(block("c")).toBe("  # leads c\n  - name: c\n    type: wait\n    seconds: 1\n");
  });
});
