import { PLAN_CODE_TIMEOUT_SECONDS, type Plan } from "../auth/plans";
import type { Finding } from "./issues";
import type { PathSegment } from "./locate";

/**
 * A code step's `timeout` past its owner's plan's bound (PLAN_CODE_TIMEOUT_SECONDS), checked where the owner's plan is
 * known (a save, an import), not by the schema that reads a stored definition: a workflow saved before, or whose owner
 * moved to a smaller plan, still parses, and its steps run with the plan's bound (docs/workflow-format.md#modifiers).
 */
export function codeTimeoutFindings(step: Record<string, unknown>, path: PathSegment[], plan: Plan): Finding[] {
  const most = PLAN_CODE_TIMEOUT_SECONDS[plan];
  if (step.type !== "code" || typeof step.timeout !== "number" || step.timeout <= most) return [];
  const name = typeof step.name === "string" ? `step \`${step.name}\`` : "this code step";
  const message =
    `${name} asks for a timeout of ${step.timeout} s, over the ${most} s (${describeSeconds(most)}) the ${plan} ` +
    `plan allows a code step: lower it, or move the account to a larger plan`;
  return [{ path: [...path, "timeout"], at: "value", message }];
}

/** "5 min", "2 h". */
function describeSeconds(s: number): string {
  return s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}
