import type { AgentStep, LlmStep } from "@wf/shared/workflow";
import { aiStepInput, runAiStep } from "../ai-steps";
import type { StepKind } from "./step-kind";

/** `llm` and `agent` steps: model calls, with an agent's MCP tools (../ai-steps.ts). */
export const aiStep: StepKind<LlmStep | AgentStep> = {
  input: aiStepInput,
  run: (ctx, step, { path, state, scope, input }) => runAiStep(ctx, step, path, state, scope, input),
};
