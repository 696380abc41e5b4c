import type { BreakpointType } from "./debug";

/**
 * The breakpoint types' names as people read them: the console's forms and lists, and the reasons of the points that
 * wait behind a pause (the console's and `wf debug`'s). Nothing but a type imported: the console's bundle takes this
 * table alone.
 */
export const BREAKPOINT_LABELS: Record<BreakpointType, string> = {
  before_step: "Before step",
  after_step: "After step",
  on_error: "On error",
  conditional: "Conditional",
  watch: "Watch",
  foreach_item: "Foreach item",
  on_retry: "On retry",
  tool_call: "Tool call",
  usage: "Usage",
};
