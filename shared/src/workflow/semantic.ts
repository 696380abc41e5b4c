import { conditionProblem, templateProblems } from "./expressions-check";
import type { Finding } from "./issues";
import type { PathSegment } from "./locate";
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
      for (const [branch, steps] of Object.entries(step.branches)) yield* rawSteps(steps, [...here, "branches", branch]);
    }
  }
}

/** Keys whose strings are not templates: literal text, script source, or checked on their own. */
const NOT_TEMPLATED = new Set(["name", "type", "description", "code", "condition", "steps", "branches"]);

function templateFindings(value: unknown, path: PathSegment[], out: Finding[]): void {
  if (typeof value === "string") {
    for (const problem of templateProblems(value)) out.push({ path, message: problem.message, at: "value", index: problem.index });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => templateFindings(item, [...path, i], out));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) templateFindings(item, [...path, key], out);
  }
}

/**
 * Checks that span more than one value: unique step and agent names, agent references, and the
 * syntax of every `{{ }}` template and `condition`. `lineOf` names the line of an earlier duplicate.
 */
export function semanticFindings(data: unknown, lineOf: (path: PathSegment[]) => number): Finding[] {
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
          message: `duplicate step name \`${step.name}\`: the step at line ${lineOf(first)} already uses it; step names must be unique in the whole file, nested steps included`,
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
    const conditionMessage = typeof step.condition === "string" ? conditionProblem(step.condition) : undefined;
    if (conditionMessage !== undefined) findings.push({ path: [...path, "condition"], at: "value", message: conditionMessage });
    for (const [key, value] of Object.entries(step)) {
      if (!NOT_TEMPLATED.has(key)) templateFindings(value, [...path, key], findings);
    }
  }
  return findings;
}
