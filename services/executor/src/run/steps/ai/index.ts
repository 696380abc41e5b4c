import type { AgentStep, LlmStep } from "@wf/shared/workflow";
import { McpConnectError } from "../../../ai/mcp-pool";
import { ProviderError } from "../../../ai/providers/types";
import type { Scope } from "../../scope";
import type { Attempt, StepAt, StepKind } from "../step-kind";
import { runAgent } from "./agent";
import type { AiStepHost } from "./host";
import { runLlm } from "./llm";
import { agentParts, llmParts, withSchemaInstruction } from "./prompt-parts";
import { BudgetError, PausedInAttempt } from "./step-calls";

/** `llm` and `agent` steps: model calls, with an agent's MCP tools. */
export const aiStep: StepKind<LlmStep | AgentStep> = { input: aiStepInput, run: runAiStep };

/** Runs one attempt of an `llm` or `agent` step; `at.input`: the conversation a debugger's `set` gave it. */
async function runAiStep(host: AiStepHost, step: LlmStep | AgentStep, at: StepAt): Promise<Attempt> {
  try {
    return step.type === "llm" ? await runLlm(host, step, at) : await runAgent(host, step, at);
  } catch (err) {
    if (err instanceof PausedInAttempt) return { kind: "parked" };
    if (err instanceof ProviderError || err instanceof McpConnectError) {
      return { kind: "failed", error: `step \`${step.name}\`: ${err.message}`, retryable: err.retryable };
    }
    if (err instanceof BudgetError)
      return { kind: "failed", error: `step \`${step.name}\`: ${err.message}`, retryable: false };
    throw err;
  }
}

/** The request of an llm or agent step as a debugger shows it before the step: the exact first call. */
async function aiStepInput(host: AiStepHost, step: LlmStep | AgentStep, scope: Scope): Promise<unknown> {
  if (step.type === "llm") {
    const { prompt, system } = await llmParts(host, step, scope);
    return {
      model: step.model,
      ...withSchemaInstruction(system, step.output_schema),
      messages: [{ role: "user", text: prompt }],
    };
  }
  const agent = host.workflow.agents?.find((a) => a.name === step.agent);
  if (!agent) return undefined;
  const { prompt, instructions } = await agentParts(host, step, agent, scope);
  return {
    model: agent.model,
    ...(instructions === undefined ? {} : { system: instructions }),
    messages: [{ role: "user", text: prompt }],
  };
}
