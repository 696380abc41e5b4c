import type { BreakpointInput, DebugCommandBody, DebugCommandName } from "@wf/shared/execution";
import { UsageError } from "../usage";
import { parseBreakSpec } from "./break-spec";

export const PROMPT_HELP = `commands at a pause:
  c                    continue to the next breakpoint
  s                    step: pause at the next step at this level or an outer one
  si                   step into a foreach, parallel or workflow step
  skip [JSON]          do not run the step (with JSON: it completes with that output)
  set vars.NAME=VALUE  change a variable (VALUE as JSON, else as text)
  set output=JSON      the paused step's output (after_step), as later steps will see it
  set arguments=JSON   a tool call's arguments (tool_call)
  set input=JSON       the step's rendered input (before_step)
  retry                run the failed step again (on_error)
  abort                cancel the execution
  b                    list the breakpoints; b add SPEC, b rm ID
  p EXPR               evaluate a JSONata expression against the pause (vars, steps, item)
  ctx                  print the pause again
  waiting              list what waits behind the pause: other branches' points and failures held
  q                    detach: the execution stays paused (wf debug --attach ID)`;

export type PromptAction =
  | { kind: "command"; command: DebugCommandName; body: DebugCommandBody }
  | { kind: "breakpoints"; op: "list" }
  | { kind: "breakpoints"; op: "add"; breakpoint: BreakpointInput }
  | { kind: "breakpoints"; op: "remove"; id: string }
  | { kind: "print"; expression: string }
  | { kind: "context" }
  | { kind: "waiting" }
  | { kind: "help" }
  | { kind: "detach" }
  | { kind: "none" };

const RESUMING: Record<string, DebugCommandName> = {
  c: "continue",
  continue: "continue",
  s: "step",
  step: "step",
  si: "step_into",
  step_into: "step_into",
  retry: "retry",
  abort: "abort",
};

/** One line typed at the prompt; a mistake throws a UsageError whose message says what to type. */
export function parsePromptLine(line: string): PromptAction {
  const text = line.trim();
  if (!text) return { kind: "none" };
  const [word = "", ...restWords] = text.split(/\s+/);
  const rest = text.slice(word.length).trim();
  const resuming = RESUMING[word];
  if (resuming) {
    if (rest) throw new UsageError(`\`${word}\` takes nothing after it`);
    return { kind: "command", command: resuming, body: {} };
  }
  switch (word) {
    case "skip":
      return { kind: "command", command: "skip", body: rest ? { output: json(rest, "skip") } : {} };
    case "set":
      return { kind: "command", command: "set", body: setBody(rest) };
    case "b":
    case "break":
      if (!rest) return { kind: "breakpoints", op: "list" };
      if (restWords[0] === "add" && restWords[1])
        return { kind: "breakpoints", op: "add", breakpoint: parseBreakSpec(rest.slice(3).trim()) };
      if ((restWords[0] === "rm" || restWords[0] === "remove") && restWords[1])
        return { kind: "breakpoints", op: "remove", id: restWords[1] };
      throw new UsageError("use b, b add SPEC or b rm ID");
    case "p":
    case "print":
      if (!rest) throw new UsageError("p needs an expression, e.g. p steps.fetch.output");
      return { kind: "print", expression: rest };
    case "ctx":
      return { kind: "context" };
    case "waiting":
      return { kind: "waiting" };
    case "help":
    case "h":
    case "?":
      return { kind: "help" };
    case "q":
    case "quit":
    case "detach":
      return { kind: "detach" };
    default:
      throw new UsageError(`unknown command \`${word}\` (help lists them)`);
  }
}

function setBody(rest: string): DebugCommandBody {
  const eq = rest.indexOf("=");
  if (eq < 0) throw new UsageError("use set vars.NAME=VALUE, set output=JSON, set arguments=JSON or set input=JSON");
  const target = rest.slice(0, eq).trim();
  const value = rest.slice(eq + 1).trim();
  if (target.startsWith("vars.") && target.length > 5) return { vars: { [target.slice(5)]: jsonOrText(value) } };
  if (target === "output" || target === "arguments" || target === "input")
    return { [target]: json(value, `set ${target}`) };
  throw new UsageError(`set ${target}: use vars.NAME, output, arguments or input`);
}

function json(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${what}: \`${text}\` is not JSON (a string needs its quotes: "text")`);
  }
}

/** As `--var` reads a value: JSON when it parses, else the text itself. */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
