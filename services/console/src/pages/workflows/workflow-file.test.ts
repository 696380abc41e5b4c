import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { copyName, withName, yamlFileName } from "./workflow-file";

const FILE = `# triage, v2
name: ticket-triage   # shown in lists
description: "sorts tickets"

steps:
  - name: classify    # a step's name is not the workflow's
    type: transform
`;

describe("withName", () => {
  it("sets the top-level name and keeps every other character", () => {
    const out = withName(FILE, copyName("ticket-triage"));
    expect(out).toBe(FILE.replace("name: ticket-triage ", "name: ticket-triage (copy) "));
    expect(parse(out)).toMatchObject({ name: "ticket-triage (copy)", steps: [{ name: "classify" }] });
  });

  it("quotes a name that YAML would read otherwise", () => {
    for (const name of ["a: b", "#1", "yes", "12", "line\nbreak", " spaced ", '"q"', "- dash", "{x}"]) {
      const out = withName(FILE, name);
      expect(parse(out)).toMatchObject({ name });
      expect(out.split("\n")).toHaveLength(FILE.split("\n").length);
    }
  });

  it("replaces a quoted or block name whole", () => {
    expect(withName(`name: 'a ''b'''\nsteps: []\n`, "c")).toBe("name: c\nsteps: []\n");
    expect(parse(withName(`name: >-\n  folded\n  text\nsteps: []\n`, "c"))).toEqual({ name: "c", steps: [] });
  });

  it("leaves a text with no name to set as it is", () => {
    for (const text of ["steps: []\n", "- a\n- b\n", "name:\n  nested: 1\n", "", "name: [unclosed\n"])
      expect(withName(text, "x")).toBe(text);
  });
});

describe("yamlFileName", () => {
  it("keeps letters, digits, dots, dashes and underscores", () => {
    expect(yamlFileName("ticket-triage")).toBe("ticket-triage.yaml");
    expect(yamlFileName("Sync CRM → Slack / daily", 3)).toBe("Sync-CRM-Slack-daily-v3.yaml");
    expect(yamlFileName("café")).toBe("cafe.yaml");
    expect(yamlFileName("../../etc/passwd")).toBe("etc-passwd.yaml");
    expect(yamlFileName("→ ←")).toBe("workflow.yaml");
    expect(yamlFileName("x".repeat(300))).toHaveLength(105);
  });
});
