import type { AgentStep, LlmStep } from "@wf/shared/workflow";
import { runAiStep } from "../ai-steps";
import type { StepKind } from "./step-kind";

/** `llm` and `agent` steps: model calls, with an agent's MCP tools (../ai-steps.ts). */
export const aiStep: StepKind<LlmStep | AgentStep> = {
  run: (ctx, step, { path, state, scope }) => runAiStep(ctx, step, path, state, scope),
};
