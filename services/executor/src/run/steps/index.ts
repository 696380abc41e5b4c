import type { Step, StepType } from "@wf/shared/workflow";
import { aiStep } from "./ai/index";
import { codeStep } from "./code";
import { foreachStep } from "./foreach";
import { parallelStep } from "./parallel";
import type { StepKind } from "./step-kind";
import { transformStep } from "./transform";
import { waitStep } from "./wait";
import { workflowCallStep } from "./workflow-call";

export type { Attempt, Outcome, StepContext } from "./step-kind";

/** How the run executes each step type: a type without its kind does not compile. */
const STEP_KINDS: { readonly [T in StepType]: StepKind<Extract<Step, { type: T }>> } = {
  code: codeStep,
  llm: aiStep,
  agent: aiStep,
  transform: transformStep,
  foreach: foreachStep,
  parallel: parallelStep,
  wait: waitStep,
  workflow: workflowCallStep,
};

export function stepKind(step: Step): StepKind<Step> {
  return STEP_KINDS[step.type];
}
