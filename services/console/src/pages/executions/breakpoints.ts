import { BREAKPOINT_LABELS } from "@wf/shared/execution/breakpoint-labels";
import type { Breakpoint, BreakpointInput, BreakpointType } from "../../api/types";

export type BreakpointField = "step" | "expression" | "index" | "attempt" | "server" | "tool" | "tokens" | "costUsd";

interface FieldSpec {
  name: BreakpointField;
  required: boolean;
}

interface BreakpointSpec {
  label: string;
  /** When it pauses, in docs/debugger.md's words. */
  pauses: string;
  fields: FieldSpec[];
}

const req = (name: BreakpointField): FieldSpec => ({ name, required: true });
const opt = (name: BreakpointField): FieldSpec => ({ name, required: false });

/**
 * The nine breakpoint types (shared/src/execution/debug.ts): a Record, so a new type fails to compile here until
 * described.
 */
export const BREAKPOINT_SPECS: Record<BreakpointType, BreakpointSpec> = {
  before_step: {
    label: BREAKPOINT_LABELS.before_step,
    pauses: "before the step starts, its input rendered",
    fields: [req("step")],
  },
  after_step: {
    label: BREAKPOINT_LABELS.after_step,
    pauses: "after the step completes, before a later step reads its output",
    fields: [req("step")],
  },
  on_error: {
    label: BREAKPOINT_LABELS.on_error,
    pauses: "when an attempt fails, before its retry (every step when none is named)",
    fields: [opt("step")],
  },
  conditional: {
    label: BREAKPOINT_LABELS.conditional,
    pauses: "before any step where the JSONata expression over vars, steps and item is truthy",
    fields: [req("expression")],
  },
  watch: {
    label: BREAKPOINT_LABELS.watch,
    pauses: "after the step whose completion changed the expression's value",
    fields: [req("expression")],
  },
  foreach_item: {
    label: BREAKPOINT_LABELS.foreach_item,
    pauses: "before an item of the foreach: item `index`, or where the expression over `item` is truthy, or every item",
    fields: [req("step"), opt("index"), opt("expression")],
  },
  on_retry: {
    label: BREAKPOINT_LABELS.on_retry,
    pauses: "after a retry's backoff, before attempt `attempt` (any retry when left out)",
    fields: [opt("step"), opt("attempt")],
  },
  tool_call: {
    label: BREAKPOINT_LABELS.tool_call,
    pauses: "before an agent calls an MCP tool (its arguments editable)",
    fields: [opt("step"), opt("server"), opt("tool")],
  },
  usage: {
    label: BREAKPOINT_LABELS.usage,
    pauses: "before the LLM call after which the execution's totals would reach the tokens or the cost",
    fields: [opt("tokens"), opt("costUsd")],
  },
};

export const BREAKPOINT_TYPES = Object.keys(BREAKPOINT_SPECS) as BreakpointType[];

export const FIELD_LABELS: Record<BreakpointField, string> = {
  step: "Step",
  expression: "Expression",
  index: "Item index",
  attempt: "Attempt",
  server: "MCP server",
  tool: "Tool",
  tokens: "Total tokens",
  costUsd: "Cost (USD)",
};

const NUMERIC: Record<BreakpointField, "int" | "number" | null> = {
  step: null,
  expression: null,
  index: "int",
  attempt: "int",
  server: null,
  tool: null,
  tokens: "int",
  costUsd: "number",
};

export function breakpointLabel(type: string): string {
  return type in BREAKPOINT_SPECS ? BREAKPOINT_SPECS[type as BreakpointType].label : type;
}

/** What a breakpoint watches, in a few words: its fields that are set. */
export function describeBreakpoint(bp: Breakpoint): string {
  const fields = BREAKPOINT_SPECS[bp.type].fields;
  const parts = fields.flatMap(({ name }) => {
    const value = (bp as Partial<Record<BreakpointField, unknown>>)[name];
    return value === undefined ? [] : [`${FIELD_LABELS[name].toLowerCase()} ${String(value)}`];
  });
  if (bp.hitCount !== undefined) parts.push(`hit ${bp.hitCount} only`);
  return parts.length > 0 ? parts.join(", ") : "any";
}

export type Built = { ok: true; breakpoint: BreakpointInput } | { ok: false; message: string };

/**
 * A breakpoint from the form's text fields; the service checks it against the workflow too (a step that does not
 * exist).
 */
export function buildBreakpoint(
  type: BreakpointType,
  values: Partial<Record<BreakpointField, string>>,
  hitCount: string,
): Built {
  const out: Record<string, unknown> = { type };
  for (const { name, required } of BREAKPOINT_SPECS[type].fields) {
    const text = (values[name] ?? "").trim();
    if (text === "") {
      if (required)
        return {
          ok: false,
          message: `${FIELD_LABELS[name]} is required for a ${BREAKPOINT_SPECS[type].label.toLowerCase()} breakpoint.`,
        };
      continue;
    }
    const kind = NUMERIC[name];
    if (kind === null) {
      out[name] = text;
      continue;
    }
    const n = Number(text);
    if (!Number.isFinite(n) || (kind === "int" && !Number.isInteger(n)))
      return { ok: false, message: `${FIELD_LABELS[name]} must be ${kind === "int" ? "a whole number" : "a number"}.` };
    out[name] = n;
  }
  if (hitCount.trim() !== "") {
    const n = Number(hitCount);
    if (!Number.isInteger(n) || n < 1) return { ok: false, message: "Hit count must be a whole number, 1 or more." };
    out.hitCount = n;
  }
  return { ok: true, breakpoint: out as BreakpointInput };
}
