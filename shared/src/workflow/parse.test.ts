import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  formatIssues,
  MAX_FOREACH_CONCURRENCY,
  MAX_OUTPUT_SCHEMA_CHARS,
  MAX_PARALLEL_BRANCHES,
  parseWorkflow,
  WorkflowSchema,
  workflowTextValidation,
  type WorkflowIssue,
} from "./index";

const example = readFileSync(new URL("./fixtures/example.yaml", import.meta.url), "utf8");

function issuesOf(text: string): WorkflowIssue[] {
  const result = parseWorkflow(text);
  if (result.ok) throw new Error("expected the workflow to be invalid");
  return result.errors;
}

/** A minimal valid step list to hang a top-level mistake on. */
const WAIT = "steps:\n  - name: a\n    type: wait\n    seconds: 1\n";

describe("parseWorkflow on the spec's example", () => {
  it("parses, with the documented defaults applied", () => {
    const result = parseWorkflow(example);
    if (!result.ok) throw new Error(formatIssues(result.errors));
    const { workflow } = result;
    expect(workflow.name).toBe("ticket-triage");
    expect(Object.keys(workflow.variables ?? {})).toEqual(["ticket_id", "priority", "dry_run", "tags"]);
    expect(workflow.agents?.[0]?.mcp?.map((m) => m.name)).toEqual(["crm", "files"]);
    expect(workflow.triggers).toEqual([
      { type: "schedule", cron: "*/15 * * * *", timezone: "UTC" },
      { type: "DELAYED_COMPLETION", after: "01jz8f3k2m4n6p8r0s2t4v6w8y", on: ["COMPLETED"], delay: 60, max_runs: 10 },
    ]);
    expect(workflow.steps.map((s) => s.type)).toEqual([
      "code",
      "agent",
      "llm",
      "code",
      "foreach",
      "parallel",
      "wait",
      "workflow",
      "transform",
    ]);
    const apply = workflow.steps[3];
    expect(apply?.retry).toEqual({ max_attempts: 3, backoff: "exponential", initial_delay: 1, max_delay: 30 });
    expect(apply?.manual_approval?.groups?.[0]?.columns[1]).toEqual({
      key: "action",
      title: "Action",
      type: "string",
      editable: true,
    });
    const each = workflow.steps[4];
    expect(each?.type === "foreach" && each.steps[0]?.name).toBe("echo");
    const both = workflow.steps[5];
    expect(both?.type === "parallel" && Object.keys(both.branches)).toEqual(["left", "right"]);
    expect(result.document.toString()).toBe(example);
  });

  it("applies the retry defaults the spec gives", () => {
    const result = parseWorkflow(
      `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    retry: { max_attempts: 2 }\n`,
    );
    expect(result.ok && result.workflow.steps[0]?.retry).toEqual({
      max_attempts: 2,
      backoff: "exponential",
      initial_delay: 1,
      max_delay: 60,
    });
  });
});

interface Mistake {
  title: string;
  yaml: string;
  line: number;
  column: number;
  path: string;
  message: string;
}

const MISTAKES: Mistake[] = [
  {
    title: "unknown top-level key, with did-you-mean",
    yaml: `name: x\nstpes:\n  - name: a\n    type: wait\n    seconds: 1\n`,
    line: 2,
    column: 1,
    path: "stpes",
    message: "unknown key `stpes` (did you mean `steps`?)",
  },
  {
    title: "unknown step key, with did-you-mean",
    yaml: `name: x\nsteps:\n  - name: a\n    type: code\n    langauge: python\n    code: print(1)\n`,
    line: 5,
    column: 5,
    path: "steps[0].langauge",
    message: "unknown key `langauge` (did you mean `language`?)",
  },
  {
    title: "a key of another step type",
    yaml: `name: x\nsteps:\n  - name: a\n    type: code\n    language: python\n    code: print(1)\n    prompt: hi\n`,
    line: 7,
    column: 5,
    path: "steps[0].prompt",
    message: "belongs to llm and agent steps",
  },
  {
    title: "missing step name, at the step's mapping",
    yaml: `name: x\nsteps:\n  - type: wait\n    seconds: 1\n`,
    line: 3,
    column: 5,
    path: "steps[0].name",
    message: "missing required key `name`",
  },
  {
    title: "missing workflow name, at the top mapping",
    yaml: `# a comment first\n${WAIT}`,
    line: 2,
    column: 1,
    path: "name",
    message: "missing required key `name`",
  },
  {
    title: "bad step name",
    yaml: `name: x\nsteps:\n  - name: 1st step\n    type: wait\n    seconds: 1\n`,
    line: 3,
    column: 11,
    path: "steps[0].name",
    message: "step names must start with a letter or `_`",
  },
  {
    title: "duplicate step name, nested in a foreach",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n  - name: f\n    type: foreach\n    items: [1]\n    steps:\n      - name: a\n        type: wait\n        seconds: 1\n`,
    line: 10,
    column: 15,
    path: "steps[1].steps[0].name",
    message: "duplicate step name `a`: the step at line 3 already uses it",
  },
  {
    title: "unknown step type, with did-you-mean among the 8",
    yaml: `name: x\nsteps:\n  - name: a\n    type: trasform\n    output: 1\n`,
    line: 4,
    column: 11,
    path: "steps[0].type",
    message:
      "unknown type `trasform` (did you mean `transform`?): use one of code, llm, agent, transform, foreach, parallel, wait, workflow",
  },
  {
    title: "a language used as a step type",
    yaml: `name: x\nsteps:\n  - name: a\n    type: python\n`,
    line: 4,
    column: 11,
    path: "steps[0].type",
    message: "use `type: code` with `language: python`",
  },
  {
    title: "wrong value type",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: "10"\n`,
    line: 5,
    column: 14,
    path: "steps[0].seconds",
    message: 'must be a number, not the string "10": remove the quotes',
  },
  {
    title: "bad language",
    yaml: `name: x\nsteps:\n  - name: a\n    type: code\n    language: pyhton\n    code: print(1)\n`,
    line: 5,
    column: 15,
    path: "steps[0].language",
    message: "`pyhton` is not a valid `language` (did you mean `python`?): use one of python, javascript",
  },
  {
    title: "cli without command",
    yaml: `name: x\nsteps:\n  - name: a\n    type: code\n    language: cli\n`,
    line: 3,
    column: 5,
    path: "steps[0].command",
    message: "a cli step needs `command`",
  },
  {
    title: "cli with code",
    yaml: `name: x\nsteps:\n  - name: a\n    type: code\n    language: cli\n    command: [ls]\n    code: ls\n`,
    line: 7,
    column: 5,
    path: "steps[0].code",
    message: "takes no `code`: remove `code`",
  },
  {
    title: "invalid JSONata in a template, pointing at its `{{`",
    yaml: `name: x\nsteps:\n  - name: a\n    type: llm\n    model: m\n    prompt: "Say {{ vars.x + }} now"\n`,
    line: 6,
    column: 18,
    path: "steps[0].prompt",
    message: "invalid expression `vars.x +`: Unexpected end of expression",
  },
  {
    title: "invalid JSONata in a template inside a literal block",
    yaml: `name: x\nsteps:\n  - name: a\n    type: transform\n    output:\n      text: |\n        Line one\n        Count {{ $count( }}\n`,
    line: 8,
    column: 15,
    path: "steps[0].output.text",
    message: 'Expected ")" before end of expression',
  },
  {
    title: "unclosed `{{`",
    yaml: `name: x\nsteps:\n  - name: a\n    type: llm\n    model: m\n    prompt: Say {{ vars.x now\n`,
    line: 6,
    column: 17,
    path: "steps[0].prompt",
    message: "`{{` is never closed",
  },
  {
    title: "invalid JSONata in a condition",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    condition: "vars.x = = 1"\n`,
    line: 6,
    column: 16,
    path: "steps[0].condition",
    message: 'invalid condition `vars.x = = 1`: The symbol "=" cannot be used as a unary operator',
  },
  {
    title: "a condition written as a template",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    condition: "{{ vars.x }}"\n`,
    line: 6,
    column: 16,
    path: "steps[0].condition",
    message: "remove the `{{ }}`",
  },
  {
    title: "wait with both seconds and until, at the `until` key",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    until: 2030-01-01T00:00:00Z\n`,
    line: 6,
    column: 5,
    path: "steps[0].until",
    message: "a wait step takes `seconds` or `until`, not both",
  },
  {
    title: "wait with neither seconds nor until",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n`,
    line: 3,
    column: 5,
    path: "steps[0]",
    message: "a wait step needs `seconds`",
  },
  {
    title: "wait until a date that does not exist",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    until: 2030-02-31T09:00:00Z\n`,
    line: 5,
    column: 12,
    path: "steps[0].until",
    message: "`until` must be an ISO-8601 date-time with a zone",
  },
  {
    title: "retry max_attempts 0",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    retry: { max_attempts: 0 }\n`,
    line: 6,
    column: 28,
    path: "steps[0].retry.max_attempts",
    message: "must be at least 1, not 0",
  },
  {
    title: "variable default of the wrong type",
    yaml: `name: x\nvariables:\n  n: { type: number, default: "three" }\n${WAIT}`,
    line: 3,
    column: 31,
    path: "variables.n.default",
    message: 'default is the string "three" but the variable\'s type is number',
  },
  {
    title: "agent step naming an unknown agent",
    yaml: `name: x\nagents:\n  - name: support\n    model: m\nsteps:\n  - name: a\n    type: agent\n    agent: suport\n    prompt: hi\n`,
    line: 8,
    column: 12,
    path: "steps[0].agent",
    message: "unknown agent `suport` (did you mean `support`?)",
  },
  {
    title: "cron hour out of range",
    yaml: `name: x\ntriggers:\n  - type: schedule\n    cron: "0 24 * * *"\n${WAIT}`,
    line: 4,
    column: 11,
    path: "triggers[0].cron",
    message: "cron hour field `24`: 24 is out of range 0-23",
  },
  {
    title: "cron with 4 fields",
    yaml: `name: x\ntriggers:\n  - type: schedule\n    cron: 0 * * *\n${WAIT}`,
    line: 4,
    column: 11,
    path: "triggers[0].cron",
    message: "has 4 fields; it needs 5",
  },
  {
    title: "unknown time zone",
    yaml: `name: x\ntriggers:\n  - type: schedule\n    cron: "* * * * *"\n    timezone: Europe/Berln\n${WAIT}`,
    line: 5,
    column: 15,
    path: "triggers[0].timezone",
    message: "unknown time zone `Europe/Berln` (did you mean `Europe/Berlin`?)",
  },
  {
    title: "foreach items that is neither a list nor a template",
    yaml: `name: x\nsteps:\n  - name: a\n    type: foreach\n    items: rows\n    steps: [ { name: b, type: wait, seconds: 1 } ]\n`,
    line: 5,
    column: 12,
    path: "steps[0].items",
    message: "must be a list or one whole `{{ … }}` template",
  },
  {
    title: "empty value",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    retry:\n`,
    line: 6,
    column: 5,
    path: "steps[0].retry",
    message: "has no value: give it a mapping",
  },
  {
    title: "foreach concurrency past the bound",
    yaml: `name: x\nsteps:\n  - name: each\n    type: foreach\n    items: [1, 2]\n    concurrency: 3000\n    steps:\n      - { name: a, type: wait, seconds: 1 }\n`,
    line: 6,
    column: 18,
    path: "steps[0].concurrency",
    message: "must be at most 100, not 3000: a foreach runs at most 100 items at once",
  },
  {
    title: "parallel with more branches than the bound",
    yaml: `name: x\nsteps:\n  - name: fan\n    type: parallel\n    branches:\n${Array.from({ length: 101 }, (_, i) => `      b${i}: [{ name: s${i}, type: wait, seconds: 1 }]\n`).join("")}`,
    line: 5,
    column: 5,
    path: "steps[0].branches",
    message: "a parallel step has at most 100 branches, not 101",
  },
  {
    title: "YAML syntax error",
    yaml: `name: x\nsteps:\n  - name: a\n    type: wait\n   seconds: 1\n`,
    line: 5,
    column: 1,
    path: "steps",
    message: "YAML syntax error: ",
  },
  {
    title: "duplicate YAML key",
    yaml: `name: x\nname: y\n${WAIT}`,
    line: 2,
    column: 1,
    path: "name",
    message: "duplicate key",
  },
];

describe("parseWorkflow on mistakes", () => {
  for (const mistake of MISTAKES) {
    it(mistake.title, () => {
      const issues = issuesOf(mistake.yaml);
      expect(issues).toHaveLength(1);
      const [issue] = issues;
      expect(issue).toMatchObject({ line: mistake.line, column: mistake.column, path: mistake.path });
      expect(issue?.message).toContain(mistake.message);
    });
  }

  it("reports every mistake of a file at once, in file order", () => {
    const issues = issuesOf(
      `nme: x\nsteps:\n  - name: a\n    type: wait\n    seconds: -1\n  - name: a\n    type: transform\n    output: 1\n`,
    );
    expect(issues.map(({ line, column, path }) => ({ line, column, path }))).toEqual([
      { line: 1, column: 1, path: "nme" },
      { line: 5, column: 14, path: "steps[0].seconds" },
      { line: 6, column: 11, path: "steps[1].name" },
    ]);
    // The misspelt `nme` stands for the missing `name`: no second issue for the same mistake.
    expect(issues[0]?.message).toBe("unknown key `nme` (did you mean `name`?)");
  });

  it("checks a step's rules even when another field of it is wrong", () => {
    const issues = issuesOf(
      `name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    until: soon\n    timout: 5\n`,
    );
    expect(issues.map((i) => i.path)).toEqual(["steps[0].until", "steps[0].until", "steps[0].timout"]);
  });

  it("reports a syntax error together with the mistakes before it, but not the parser's guesses after it", () => {
    const issues = issuesOf(
      `name: x\ndescripton: y\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n  - name: b\n    type: wait\n   seconds: 1\n`,
    );
    expect(issues.map(({ line, column, path }) => ({ line, column, path }))).toEqual([
      { line: 2, column: 1, path: "descripton" },
      { line: 9, column: 1, path: "steps" },
    ]);
    expect(issues[1]?.message).toContain("YAML syntax error");
  });

  it("reports an empty file", () => {
    expect(issuesOf("")).toEqual([
      { path: "", line: 1, column: 1, message: "the file is empty: a workflow needs at least `name` and `steps`" },
    ]);
  });
});

describe("the fan-out bounds", () => {
  const foreach = (concurrency: number) =>
    `name: x\nsteps:\n  - name: each\n    type: foreach\n    items: [1, 2]\n    concurrency: ${concurrency}\n    steps:\n      - { name: a, type: wait, seconds: 1 }\n`;
  const parallel = (width: number) =>
    `name: x\nsteps:\n  - name: fan\n    type: parallel\n    branches:\n${Array.from({ length: width }, (_, i) => `      b${i}: [{ name: s${i}, type: wait, seconds: 1 }]\n`).join("")}`;

  it("takes a foreach of concurrency 100 and a parallel of 100 branches", () => {
    expect(parseWorkflow(foreach(MAX_FOREACH_CONCURRENCY)).ok).toBe(true);
    expect(parseWorkflow(parallel(MAX_PARALLEL_BRANCHES)).ok).toBe(true);
  });

  it("still reads a stored definition past them, as the executor does: it runs at the bound", () => {
    for (const text of [foreach(3000), parallel(150)]) {
      expect(parseWorkflow(text).ok).toBe(false);
      expect(WorkflowSchema.safeParse(parse(text)).success).toBe(true);
    }
  });
});

describe("the output_schema bound", () => {
  // A schema whose JSON is `chars` long: one property, its description padded.
  const llm = (chars: number) => {
    const schema = { type: "object", properties: { n: { type: "integer", description: "" } } };
    schema.properties.n.description = "d".repeat(chars - JSON.stringify(schema).length);
    return `name: x\nsteps:\n  - name: classify\n    type: llm\n    model: m\n    prompt: p\n    output_schema: ${JSON.stringify(schema)}\n`;
  };

  it("takes a schema of the longest allowed, and refuses a longer one naming the step and the limit", () => {
    expect(parseWorkflow(llm(MAX_OUTPUT_SCHEMA_CHARS)).ok).toBe(true);
    expect(issuesOf(llm(MAX_OUTPUT_SCHEMA_CHARS + 1))).toEqual([
      {
        path: "steps[0].output_schema",
        line: 7,
        column: 5,
        message:
          "step `classify`: `output_schema` is 16,385 characters of JSON, more than the 16,384 allowed: describe the answer with a smaller schema",
      },
    ]);
  });
});

describe("formatIssues", () => {
  it("prints compiler-style lines", () => {
    const issues: WorkflowIssue[] = [
      { path: "steps[0].type", line: 4, column: 11, message: "unknown type `cod`" },
      { path: "", line: 1, column: 1, message: "the file is empty" },
    ];
    expect(formatIssues(issues, "triage.yaml")).toBe(
      "triage.yaml:4:11  steps[0].type: unknown type `cod`\ntriage.yaml:1:1  the file is empty",
    );
    expect(formatIssues(issues.slice(0, 1))).toBe("workflow.yaml:4:11  steps[0].type: unknown type `cod`");
  });
});

describe("workflowTextValidation", () => {
  const text =
    "name: long\nsteps:\n  - name: crunch\n    type: code\n    language: javascript\n    timeout: 3600\n    code: return 1\n";

  it("validates one parse of a text on its own and for each owner's plan", () => {
    const validated = workflowTextValidation(text);
    const alone = validated();
    const team = validated({ plan: "team" });
    if (!alone.ok || !team.ok) throw new Error("expected the workflow to be valid on its own and on the team plan");
    expect(team.yaml).toBe(alone.yaml);
    expect(team.workflow).toEqual(alone.workflow);
    const free = validated({ plan: "free" });
    expect(free.ok ? [] : free.errors).toEqual([
      expect.objectContaining({ path: "steps[0].timeout", line: 6, message: expect.stringContaining("300 s") }),
    ]);
  });
});
