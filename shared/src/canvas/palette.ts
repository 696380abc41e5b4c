import { stringify } from "yaml";
import type { CodeLanguage, StepType } from "../workflow/step-types";
import type { Piece } from "./layout";

/**
 * Hands out `step_<n>` names no step uses yet, counting on from the number of names in use, so the first reads as the
 * next step.
 */
export function nameSource(taken: Iterable<string | undefined>): () => string {
  const used = new Set(taken);
  let n = used.size;
  return () => {
    let name: string;
    do name = `step_${++n}`;
    while (used.has(name));
    used.add(name);
    return name;
  };
}

/**
 * What a new code step runs in each language: a line that works there, its output `hello`. A script's output is what
 * JavaScript and TypeScript return and what the others print last (docs/sandbox.md): Python's `print` is no function in
 * JavaScript, so each language has its own.
 */
export const STARTERS: Readonly<Record<Exclude<CodeLanguage, "cli">, string>> = {
  python: 'print("hello")',
  javascript: 'return "hello";',
  typescript: 'return "hello";',
  bash: "echo hello",
  ruby: 'puts "hello"',
  lua: 'print("hello")',
};

/** What a new `cli` step runs: a program, and its arguments, that every sandbox has. */
export const CLI_STARTER: readonly string[] = ["echo", "hello"];

/** A starter as a flow mapping writes it, on one line, or as a block scalar, a line of its own. */
export function starterCode(language: Exclude<CodeLanguage, "cli">, flow: boolean): string {
  return flow ? STARTERS[language] : STARTERS[language] + "\n";
}

/**
 * A new step of each type, valid as it stands and small enough to read at a glance. An `agent`
 * step needs an agent to name, so it takes the file's first one; undefined without agents.
 */
export function defaultStep(
  type: StepType,
  nextName: () => string,
  agents: readonly string[],
  flow: boolean,
): object | undefined {
  const name = nextName();
  switch (type) {
    case "code":
      return { name, type, language: "python", code: starterCode("python", flow) };
    case "llm":
      return { name, type, model: "gpt-4o-mini", prompt: "Say hello." };
    case "agent":
      return agents[0] === undefined ? undefined : { name, type, agent: agents[0], prompt: "Say hello." };
    case "transform":
      return { name, type, output: {} };
    case "foreach":
      return { name, type, items: [], steps: [{ name: nextName(), type: "transform", output: "{{ item }}" }] };
    case "parallel":
      return { name, type, branches: { branch_1: [{ name: nextName(), type: "transform", output: {} }] } };
    case "wait":
      return { name, type, seconds: 1 };
    case "workflow":
      return { name, type, workflow: "WORKFLOW_ID" };
  }
}

/**
 * A new step as a piece for its list: a block item (its lists indented under their keys when the file's are), or one
 * line of flow text.
 */
export function newStepPiece(step: object, flow: boolean, seqIndent: number): Piece {
  if (flow) return { kind: "flow", text: stringify(step, { collectionStyle: "flow", lineWidth: 0 }).trim() };
  const body = stringify(step, { lineWidth: 0, indent: 2, indentSeq: seqIndent > 0 }).replace(/\n$/, "");
  const lines = body.split("\n").map((line, i) => (i === 0 ? "- " + line : line === "" ? line : "  " + line));
  return { kind: "block", text: lines.join("\n") + "\n", col: 0 };
}
