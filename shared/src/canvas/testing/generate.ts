/**
 * Seeded generator of valid workflow texts laid out the way people write them: comments above,
 * inside, after and beside steps, blank lines, every quoting style, block and flow mappings and
 * lists, nested foreach and parallel steps, names with `-`, and references between steps.
 */
import { pick, seeded, type Random } from "../../testing/random";

const BASES = [
  "fetch",
  "classify",
  "summarise",
  "notify",
  "load-data",
  "apply_rows",
  "check",
  "render",
  "pause",
  "call",
];
const COMMENTS = [
  "# why this step exists",
  "# TODO: tune later",
  "# keep in sync with the API",
  "# disabled: retry: { max_attempts: 9 }",
];

interface Style {
  seqIndent: number;
  separated: boolean;
  hasAgents: boolean;
}

class Writer {
  readonly lines: string[] = [];
  readonly names: string[] = [];
  #count = 0;
  constructor(
    readonly random: Random,
    readonly style: Style,
  ) {}

  chance(p: number): boolean {
    return this.random() < p;
  }

  name(): string {
    this.#count++;
    const base = pick(this.random, BASES);
    return this.chance(0.8) ? `${base}_${this.#count}` : `${base}-${this.#count}`;
  }

  /** A reference to an earlier step, as JSONata needs it. */
  ref(): string | undefined {
    if (this.names.length === 0) return undefined;
    const name = pick(this.random, this.names);
    return /-/.test(name) ? `steps.\`${name}\`` : `steps.${name}`;
  }

  quoted(text: string): string {
    if (text.includes("{{") || text.includes(": ")) return this.chance(0.5) ? `"${text}"` : `'${text}'`;
    return pick(this.random, [text, `"${text}"`, `'${text}'`]);
  }

  template(prefix: string): string {
    const ref = this.ref();
    return ref === undefined ? `${prefix} {{ vars.who }}` : `${prefix} {{ ${ref}.output }}`;
  }

  comment(): string {
    return pick(this.random, COMMENTS);
  }

  inline(): string {
    return this.chance(0.2) ? `  ${this.comment()}` : "";
  }

  push(col: number, text: string): void {
    this.lines.push(" ".repeat(col) + text);
  }
}

const SIMPLE = ["code", "llm", "transform", "wait", "workflow"] as const;

/** A step short enough for one flow mapping. */
function flowStep(w: Writer): string {
  const name = w.name();
  const kind = pick(w.random, ["wait", "transform", "workflow"] as const);
  const body =
    kind === "wait"
      ? "seconds: 1"
      : kind === "transform"
        ? `output: ${w.chance(0.5) ? `"${w.template("got")}"` : "{ ok: true }"}`
        : "workflow: 01jz8f5q7r9s1t3v5w7x9y1z3a";
  w.names.push(name);
  return `{ name: ${name}, type: ${kind}, ${body} }`;
}

function modifiers(w: Writer, col: number): void {
  if (w.chance(0.25)) {
    const ref = w.ref();
    w.push(
      col,
      ref === undefined
        ? `condition: vars.flag = true${w.inline()}`
        : `condition: "${ref}.status = 'COMPLETED'"${w.inline()}`,
    );
  }
  if (w.chance(0.25)) {
    if (w.chance(0.5)) w.push(col, "retry: { max_attempts: 3, backoff: fixed }");
    else {
      w.push(col, "retry:");
      w.push(col + 2, `max_attempts: 2${w.inline()}`);
    }
  }
  if (w.chance(0.2)) w.push(col, `timeout: ${pick(w.random, [5, 30, 120])}${w.inline()}`);
  if (w.chance(0.15)) {
    w.push(col, "manual_approval:");
    w.push(col + 2, `message: ${w.quoted("Go ahead?")}`);
    w.push(col + 2, "timeout: 3600");
  }
}

function body(w: Writer, kind: string, col: number, depth: number): void {
  switch (kind) {
    case "code":
      w.push(col, `language: ${pick(w.random, ["python", "bash"])}`);
      if (w.chance(0.3)) w.push(col, w.comment());
      w.push(col, "code: |");
      w.push(col + 2, "# a comment inside the script");
      w.push(col + 2, 'echo "hello"');
      return;
    case "llm":
      w.push(col, `model: ${w.quoted("gpt-4o-mini")}${w.inline()}`);
      w.push(col, `prompt: ${w.quoted(w.template("Summarise"))}`);
      return;
    case "agent":
      w.push(col, "agent: helper");
      w.push(col, `prompt: ${w.quoted(w.template("Look at"))}`);
      return;
    case "transform":
      if (w.chance(0.5)) w.push(col, `output: ${w.quoted(w.template("value"))}`);
      else {
        w.push(col, "output:");
        w.push(col + 2, `text: ${w.quoted(w.template("text"))}`);
        w.push(col + 2, "count: 3");
      }
      return;
    case "wait":
      w.push(col, `seconds: 1${w.inline()}`);
      return;
    case "workflow":
      w.push(col, "workflow: 01jz8f5q7r9s1t3v5w7x9y1z3a");
      if (w.chance(0.5)) w.push(col, `inputs: { who: "{{ vars.who }}" }`);
      return;
    case "foreach":
      w.push(col, `items: ${w.chance(0.5) ? '"{{ [1, 2, 3] }}"' : "[1, 2]"}`);
      if (w.chance(0.3)) w.push(col, "concurrency: 2");
      list(w, "steps", col, depth + 1);
      return;
    case "parallel": {
      w.push(col, "branches:");
      const count = 1 + Math.floor(w.random() * 2);
      for (let i = 0; i < count; i++)
        list(w, pick(w.random, ["left", "right", "fast", "slow-path"]) + `_${i}`, col + 2, depth + 1);
      return;
    }
  }
}

function step(w: Writer, col: number, depth: number): void {
  if (w.chance(0.25)) w.push(col, w.comment());
  if (w.chance(0.15)) {
    w.push(col, `- ${flowStep(w)}${w.inline()}`);
    return;
  }
  const kinds: string[] = [
    ...SIMPLE,
    ...(w.style.hasAgents ? ["agent"] : []),
    ...(depth < 2 ? ["foreach", "parallel", "foreach"] : []),
  ];
  const kind = pick(w.random, kinds);
  const name = w.name();
  const content = col + 2;
  w.push(col, `- name: ${w.chance(0.2) ? `"${name}"` : name}${w.inline()}`);
  w.push(content, `type: ${kind}`);
  if (w.chance(0.2)) w.push(content, `description: ${w.quoted("does the thing: well")}`);
  if (w.chance(0.3)) modifiers(w, content);
  // Registered before its fields, so some steps read themselves or their container: the graph must cope.
  w.names.push(name);
  body(w, kind, content, depth);
  if (w.chance(0.15)) w.push(content, w.comment());
}

/** `key:` then a list of steps under it: block, or (nested lists only) flow on one line or several. */
function list(w: Writer, key: string, col: number, depth: number): void {
  const count = 1 + Math.floor(w.random() * (depth === 0 ? 5 : 3));
  if (depth > 0 && w.chance(0.25)) {
    const items = Array.from({ length: count }, () => flowStep(w));
    if (w.chance(0.5)) w.push(col, `${key}: [ ${items.join(", ")} ]${w.inline()}`);
    else {
      w.push(col, `${key}: [`);
      items.forEach((item, i) => w.push(col + 4, item + (i < items.length - 1 ? "," : "")));
      w.push(col + 2, "]");
    }
    return;
  }
  w.push(col, `${key}:`);
  const dash = col + w.style.seqIndent;
  for (let i = 0; i < count; i++) {
    if (i > 0 && w.style.separated && depth === 0) w.lines.push("");
    step(w, dash, depth);
  }
}

export function generateWorkflow(seed: number): string {
  const random = seeded(seed);
  const w = new Writer(random, {
    seqIndent: pick(random, [0, 2, 2, 4]),
    separated: random() < 0.4,
    hasAgents: random() < 0.5,
  });
  if (w.chance(0.5)) w.lines.push(`# generated workflow ${seed}`);
  w.lines.push(`name: gen-${seed}${w.inline()}`);
  if (w.chance(0.5)) w.lines.push(`description: ${w.quoted("made by the canvas tests")}`);
  w.lines.push("variables:");
  w.lines.push('  who: { type: string, default: "Ada" }');
  w.lines.push("  flag: { type: boolean, default: true }");
  if (w.style.hasAgents) {
    w.lines.push("agents:");
    w.lines.push("  - name: helper");
    w.lines.push("    model: gpt-4o-mini");
    w.lines.push('    instructions: "Help {{ vars.who }}"');
  }
  if (w.chance(0.4)) {
    w.lines.push("triggers:");
    w.lines.push('  - { type: schedule, cron: "0 * * * *" }');
  }
  if (w.chance(0.3)) w.lines.push("");
  list(w, "steps", 0, 0);
  if (w.chance(0.3)) w.lines.push("# the end");
  return w.lines.join("\n") + (w.chance(0.9) ? "\n" : "");
}
