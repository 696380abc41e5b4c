import type { Plan } from "../auth/plans";
import { codeTimeoutFindings } from "./code-timeout-bound";
import { conditionProblem, templateProblems } from "./expressions-check";
import { fanOutFindings } from "./fan-out-bounds";
import type { Finding } from "./issues";
import type { PathSegment } from "./locate";
import { outputSchemaFindings } from "./output-schema-bounds";
import { stepReferences } from "./step-references";
import { didYouMean } from "./suggest";
import { isPlainObject } from "./value-types";

interface RawStep {
  step: Record<string, unknown>;
  path: PathSegment[];
}

/**
 * Every mapping in a step list, nested ones included. Runs on the raw data, before or without a
 * successful schema parse, so nesting is followed whatever the step's `type` says.
 */
function* rawSteps(list: unknown, path: PathSegment[]): Generator<RawStep> {
  if (!Array.isArray(list)) return;
  for (const [i, step] of list.entries()) {
    if (!isPlainObject(step)) continue;
    const here = [...path, i];
    yield { step, path: here };
    yield* rawSteps(step.steps, [...here, "steps"]);
    if (isPlainObject(step.branches)) {
      for (const [branch, steps] of Object.entries(step.branches))
        yield* rawSteps(steps, [...here, "branches", branch]);
    }
  }
}

/** Keys whose strings are not templates: literal text, script source, or checked on their own. */
const NOT_TEMPLATED = new Set(["name", "type", "description", "code", "condition", "steps", "branches"]);

function templateFindings(value: unknown, path: PathSegment[], out: Finding[]): void {
  if (typeof value === "string") {
    for (const problem of templateProblems(value))
      out.push({ path, message: problem.message, at: "value", index: problem.index });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => templateFindings(item, [...path, i], out));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) templateFindings(item, [...path, key], out);
  }
}

/** The start of the message of a step's name that an earlier step already has. */
const DUPLICATE_STEP = "duplicate step name `";

/**
 * Whether a problem is a step's name that an earlier step of the file already has. It is reported at the later step
 * only; the canvas marks the earlier one too, as the two are one mistake.
 */
export function isDuplicateStepIssue(issue: { message: string }): boolean {
  return issue.message.startsWith(DUPLICATE_STEP);
}

/**
 * The start of the message of a reference to a step the file does not have: `isUnknownStepIssue` tells such problems
 * from others.
 */
const UNKNOWN_STEP = "unknown step `";

/**
 * Whether a problem is a `steps.<name>` naming no step of the file, and no other: a step deleted
 * while others still read it. The file is still drawn and edited as a whole; the reference is what
 * to fix. `names`, when given, narrows it to references to those names.
 */
export function isUnknownStepIssue(issue: { message: string }, names?: readonly string[]): boolean {
  if (!issue.message.startsWith(UNKNOWN_STEP)) return false;
  return names === undefined || names.some((name) => issue.message.startsWith(`${UNKNOWN_STEP}${name}\``));
}

/** Every `steps.<name>` in a value where it is evaluated, with the path of the string and its offset there. */
function referenceFindings(
  value: unknown,
  path: PathSegment[],
  whole: boolean,
  names: ReadonlySet<string>,
  out: Finding[],
): void {
  if (typeof value === "string") {
    for (const ref of stepReferences(value, whole)) {
      if (names.has(ref.name)) continue;
      const message =
        names.size === 0
          ? `${UNKNOWN_STEP}${ref.name}\`: the workflow has no step of that name`
          : `${UNKNOWN_STEP}${ref.name}\`${didYouMean(ref.name, names)}: no step of the workflow has that name (a step deleted or renamed?); read one of ${[...names].join(", ")}`;
      out.push({ path, message, at: "value", index: ref.index });
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => referenceFindings(item, [...path, i], false, names, out));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) referenceFindings(item, [...path, key], false, names, out);
  }
}

/**
 * Checks that span more than one value: unique step and agent names, agent references, the
 * syntax of every `{{ }}` template and `condition`, and that each `steps.<name>` read in them
 * names a step of the file; and the bounds a stored definition may pass (fan-out-bounds.ts, output-schema-bounds.ts;
 * with the owner's `plan`, code-timeout-bound.ts). `lineOf` names the line of an earlier duplicate.
 */
export function semanticFindings(data: unknown, lineOf: (path: PathSegment[]) => number, plan?: Plan): Finding[] {
  if (!isPlainObject(data)) return [];
  const findings: Finding[] = [];

  const agentNames = new Map<string, PathSegment[]>();
  if (Array.isArray(data.agents)) {
    for (const [i, agent] of data.agents.entries()) {
      if (!isPlainObject(agent)) continue;
      const path: PathSegment[] = ["agents", i];
      if (typeof agent.name === "string") {
        const first = agentNames.get(agent.name);
        if (first) {
          findings.push({
            path: [...path, "name"],
            at: "value",
            message: `duplicate agent name \`${agent.name}\`: the agent at line ${lineOf(first)} already uses it; rename one`,
          });
        } else agentNames.set(agent.name, [...path, "name"]);
      }
      for (const [key, value] of Object.entries(agent)) {
        if (key !== "name") templateFindings(value, [...path, key], findings);
      }
    }
  }

  const stepNames = new Map<string, PathSegment[]>();
  for (const { step, path } of rawSteps(data.steps, ["steps"])) {
    if (typeof step.name === "string") {
      const first = stepNames.get(step.name);
      if (first) {
        findings.push({
          path: [...path, "name"],
          at: "value",
          message: `${DUPLICATE_STEP}${step.name}\`: the step at line ${lineOf(first)} already uses it; step names must be unique in the whole file, nested steps included`,
        });
      } else stepNames.set(step.name, [...path, "name"]);
    }
    if (step.type === "agent" && typeof step.agent === "string" && !agentNames.has(step.agent)) {
      const message =
        agentNames.size === 0
          ? `unknown agent \`${step.agent}\`: no agents are defined; add one named \`${step.agent}\` under the top-level \`agents\``
          : `unknown agent \`${step.agent}\`${didYouMean(step.agent, agentNames.keys())}: define it under the top-level \`agents\` or use one of ${[...agentNames.keys()].join(", ")}`;
      findings.push({ path: [...path, "agent"], at: "value", message });
    }
    findings.push(...fanOutFindings(step, path), ...outputSchemaFindings(step, path));
    if (plan !== undefined) findings.push(...codeTimeoutFindings(step, path, plan));
    const conditionMessage = typeof step.condition === "string" ? conditionProblem(step.condition) : undefined;
    if (conditionMessage !== undefined)
      findings.push({ path: [...path, "condition"], at: "value", message: conditionMessage });
    for (const [key, value] of Object.entries(step)) {
      if (!NOT_TEMPLATED.has(key)) templateFindings(value, [...path, key], findings);
    }
  }

  // References last: a step may read one defined after it (or nested anywhere in the file).
  const names = new Set(stepNames.keys());
  if (Array.isArray(data.agents)) {
    for (const [i, agent] of data.agents.entries()) {
      if (!isPlainObject(agent)) continue;
      for (const [key, value] of Object.entries(agent))
        if (key !== "name") referenceFindings(value, ["agents", i, key], false, names, findings);
    }
  }
  for (const { step, path } of rawSteps(data.steps, ["steps"])) {
    for (const [key, value] of Object.entries(step)) {
      if (key === "condition") referenceFindings(value, [...path, key], true, names, findings);
      else if (!NOT_TEMPLATED.has(key)) referenceFindings(value, [...path, key], false, names, findings);
    }
  }
  return findings;
}
