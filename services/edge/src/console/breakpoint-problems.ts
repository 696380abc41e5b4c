import type { FieldProblem } from "@wf/shared/api";
import type { Breakpoint } from "@wf/shared/execution";
import { childSteps, compileError, WorkflowSchema, type Step } from "@wf/shared/workflow";

/**
 * What the breakpoints' schema cannot see, checked against the workflow before a debug run
 * starts (or its breakpoints change), so that a typo is a 400 rather than a breakpoint that
 * never hits: ids used twice, step paths naming no step, expressions JSONata does not compile.
 * `field` is the body field holding the breakpoints (`debug.breakpoints`, `breakpoints`).
 */
export function breakpointProblems(
  definition: unknown,
  breakpoints: readonly Breakpoint[],
  field: string,
): FieldProblem[] {
  const workflow = WorkflowSchema.safeParse(definition);
  const steps: readonly Step[] = workflow.success ? workflow.data.steps : [];
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  breakpoints.forEach((bp, i) => {
    const at = (name: string, message: string) =>
      problems.push({ in: "body", field: `${field}[${i}].${name}`, message });
    if (bp.id !== undefined) {
      if (seen.has(bp.id)) at("id", `another breakpoint has the id ${bp.id}`);
      seen.add(bp.id);
    }
    if ("step" in bp && bp.step !== undefined) {
      const found = stepAt(steps, bp.step);
      if (typeof found === "string") at("step", found);
      else if (bp.type === "foreach_item" && found.type !== "foreach")
        at("step", `${bp.step} is a ${found.type} step, not a foreach`);
    }
    if ("expression" in bp && bp.expression !== undefined) {
      const error = compileError(bp.expression);
      if (error !== undefined) at("expression", `invalid JSONata expression: ${error}`);
    }
  });
  return problems;
}

const SEGMENT = /^([A-Za-z_][A-Za-z0-9_-]*)(?:\[(\d+|\*)\])?$/;

/**
 * The step a path names, or why none: `name`, `loop[2].name` or `loop[*].name` inside a foreach
 * (any depth). A parallel's branches sit beside it in paths, as the executor records them.
 */
function stepAt(steps: readonly Step[], path: string): Step | string {
  let level = steps;
  const segments = path.split(".");
  for (const [i, segment] of segments.entries()) {
    const match = SEGMENT.exec(segment);
    if (!match) return `${path} is not a step path (name, loop[2].name or loop[*].name)`;
    const step = besideParallels(level).find((s) => s.name === match[1]);
    if (!step)
      return `the workflow has no step ${match[1]}${i === 0 ? "" : ` inside ${segments.slice(0, i).join(".")}`}`;
    if (i === segments.length - 1)
      return match[2] === undefined ? step : `${path} names a foreach item, not a step: add the step inside it`;
    if (step.type !== "foreach" || match[2] === undefined)
      return `${segments.slice(0, i + 1).join(".")} is not a foreach item (loop[2] or loop[*])`;
    level = childSteps(step)[0] ?? [];
  }
  return `${path} is not a step path`;
}

function besideParallels(level: readonly Step[]): Step[] {
  return level.flatMap((s) => [s, ...(s.type === "parallel" ? childSteps(s).flatMap(besideParallels) : [])]);
}
