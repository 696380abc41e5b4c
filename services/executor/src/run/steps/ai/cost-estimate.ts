import type { CostEstimate, Usage } from "@wf/shared/execution";
import type { AgentStep, LlmStep } from "@wf/shared/workflow";
import { estimatePromptTokens } from "../../../ai/token-estimate";
import type { Scope } from "../../scope";
import { DEFAULT_MAX_TURNS } from "./agent";
import type { AiStepHost } from "./host";
import { agentParts, llmParts, withSchemaInstruction } from "./prompt-parts";

/** An answer's length when nothing better is known: a few paragraphs. */
export const ASSUMED_OUTPUT_TOKENS = 256;

/**
 * What the step's (first) call would cost, from its messages rendered as the run would render them
 * and the model's price; no model is called. The answer is assumed as long as the step's answers
 * were in `lastUsage` (its run in the test's source), else ASSUMED_OUTPUT_TOKENS, within max_tokens.
 * A string: why it cannot be made (an unknown agent).
 */
export async function estimateStepCost(
  host: AiStepHost,
  step: LlmStep | AgentStep,
  scope: Scope,
  lastUsage: Usage | null,
): Promise<CostEstimate | string> {
  let model: string, system: string | undefined, prompt: string, maxOutput: number | null, maxCalls: number;
  if (step.type === "llm") {
    const parts = await llmParts(host, step, scope);
    ({ model } = step);
    ({ system } = withSchemaInstruction(parts.system, step.output_schema));
    prompt = parts.prompt;
    maxOutput = step.max_tokens ?? null;
    maxCalls = step.output_schema === undefined ? 1 : 2;
  } else {
    const agent = host.workflow.agents?.find((a) => a.name === step.agent);
    if (!agent) return `step \`${step.name}\`: unknown agent \`${step.agent}\``;
    const parts = await agentParts(host, step, agent, scope);
    ({ model } = agent);
    system = parts.instructions;
    prompt = parts.prompt;
    maxOutput = null;
    maxCalls = agent.max_turns ?? DEFAULT_MAX_TURNS;
  }
  const inputTokens = estimatePromptTokens({
    ...(system === undefined ? {} : { system }),
    messages: [{ role: "user", text: prompt }],
  });
  const last = lastUsage !== null && lastUsage.completionTokens > 0 ? lastUsage.completionTokens : null;
  const outputTokens = Math.min(last ?? ASSUMED_OUTPUT_TOKENS, maxOutput ?? Infinity);
  const price = host.effects.llmPrice(model);
  const usd = (output: number) =>
    price === null ? 0 : roundUsd((inputTokens * price.input + output * price.output) / 1_000_000);
  return {
    step: step.name,
    type: step.type,
    model,
    price,
    inputTokens,
    outputTokens,
    outputBasis: last === null ? "assumed" : "last_run",
    maxOutputTokens: maxOutput,
    costUsd: usd(outputTokens),
    maxCostUsd: maxOutput === null ? null : usd(maxOutput),
    maxCalls,
  };
}

function roundUsd(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}
