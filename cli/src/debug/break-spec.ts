import { Breakpoint, BREAKPOINT_TYPES, type BreakpointInput } from "@wf/shared/execution";
import { UsageError } from "../usage";

export const BREAK_SPEC_HELP = `  before_step:STEP          before STEP starts (its input rendered)
  after_step:STEP           after STEP completes, before anything sees its output
  on_error[:STEP]           when a step (or STEP) fails, before its retry
  conditional:EXPR          before any step where the JSONata EXPR is truthy
  watch:EXPR                after the step that changed EXPR's value
  foreach_item:STEP[@N]     before item N (or every item) of the foreach STEP
  foreach_item:STEP?EXPR    before the items where EXPR (over item) is truthy
  on_retry[:STEP[@N]]       before a retry attempt (attempt N)
  tool_call[:STEP[/SERVER[/TOOL]]]  before an agent calls an MCP tool
  usage:tokens=N[,cost=USD] before the LLM call that would pass a total
STEP is a step path: name, loop[2].name, loop[*].name.`;

/**
 * A `--break` (or the prompt's `b add`) as a breakpoint: `<type>` or `<type>:<args>`, the
 * arguments in the form each type documents in BREAK_SPEC_HELP.
 */
export function parseBreakSpec(spec: string): BreakpointInput {
  const colon = spec.indexOf(":");
  const type = colon < 0 ? spec : spec.slice(0, colon);
  const args = colon < 0 ? "" : spec.slice(colon + 1);
  const breakpoint = build(type, args, spec);
  const parsed = Breakpoint.safeParse(breakpoint);
  if (!parsed.success)
    throw new UsageError(
      `--break ${spec}: ${parsed.error.issues.map((i) => `${i.path.join(".") || type}: ${i.message}`).join("; ")}`,
    );
  return breakpoint;
}

function build(type: string, args: string, spec: string): BreakpointInput {
  const needs = (what: string): string => {
    if (!args) throw new UsageError(`--break ${spec}: ${type} needs ${what} (${type}:${what.toUpperCase()})`);
    return args;
  };
  switch (type) {
    case "before_step":
    case "after_step":
      return { type, step: needs("step") };
    case "on_error":
      return { type, ...(args ? { step: args } : {}) };
    case "conditional":
    case "watch":
      return { type, expression: needs("expression") };
    case "foreach_item": {
      const [, step, how, rest] = /^([^@?]+)(?:([@?])(.*))?$/.exec(needs("step")) ?? [];
      if (!step)
        throw new UsageError(`--break ${spec}: use foreach_item:STEP, foreach_item:STEP@N or foreach_item:STEP?EXPR`);
      if (how === "@") return { type, step, index: integer(rest ?? "", spec) };
      return { type, step, ...(how === "?" ? { expression: rest ?? "" } : {}) };
    }
    case "on_retry": {
      if (!args) return { type };
      const [step, attempt] = args.split("@");
      return { type, ...(step ? { step } : {}), ...(attempt === undefined ? {} : { attempt: integer(attempt, spec) }) };
    }
    case "tool_call": {
      if (!args) return { type };
      const [step, server, tool] = args.split("/");
      return { type, ...(step ? { step } : {}), ...(server ? { server } : {}), ...(tool ? { tool } : {}) };
    }
    case "usage": {
      const out: { type: "usage"; tokens?: number; costUsd?: number } = { type };
      for (const part of needs("tokens=N").split(",")) {
        const [key, value = ""] = part.split("=");
        if (key === "tokens") out.tokens = integer(value, spec);
        else if (key === "cost") out.costUsd = Number(value);
        else throw new UsageError(`--break ${spec}: usage takes tokens=N and cost=USD`);
      }
      return out;
    }
    default:
      throw new UsageError(
        `--break ${spec}: unknown breakpoint type \`${type}\`; types: ${BREAKPOINT_TYPES.join(", ")}`,
      );
  }
}

function integer(text: string, spec: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--break ${spec}: \`${text}\` is not a whole number`);
  return Number(text);
}

/** A breakpoint as the prompt's `b` lists it: the spec it would be given as. */
export function formatBreakpoint(b: Breakpoint): string {
  const off = b.enabled === false ? " (disabled)" : "";
  const hit = b.hitCount ? ` (hit ${b.hitCount})` : "";
  const body = ((): string => {
    switch (b.type) {
      case "before_step":
      case "after_step":
        return `${b.type}:${b.step}`;
      case "on_error":
        return b.step ? `on_error:${b.step}` : "on_error";
      case "conditional":
      case "watch":
        return `${b.type}:${b.expression}`;
      case "foreach_item":
        return `foreach_item:${b.step}${b.index !== undefined ? `@${b.index}` : b.expression ? `?${b.expression}` : ""}`;
      case "on_retry":
        return `on_retry${b.step ? `:${b.step}${b.attempt ? `@${b.attempt}` : ""}` : ""}`;
      case "tool_call":
        return `tool_call${[b.step, b.server, b.tool].some(Boolean) ? `:${[b.step ?? "", b.server ?? "", b.tool ?? ""].join("/").replace(/\/+$/, "")}` : ""}`;
      case "usage":
        return `usage:${[b.tokens !== undefined ? `tokens=${b.tokens}` : "", b.costUsd !== undefined ? `cost=${b.costUsd}` : ""].filter(Boolean).join(",")}`;
    }
  })();
  return `${b.id ?? "?"}  ${body}${hit}${off}`;
}
