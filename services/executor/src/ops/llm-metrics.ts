import { BoundedLabel, Counter } from "@wf/shared/metrics";

const tokens = new Counter({
  name: "wf_llm_tokens_total",
  help: "Tokens of the LLM calls of llm and agent steps, as the providers reported them, by provider, model and type (input or output).",
  labelNames: ["provider", "model", "type"],
  registers: [],
});

const cost = new Counter({
  name: "wf_llm_cost_usd_total",
  help: "What the LLM calls of llm and agent steps cost in US dollars, priced by WF_LLM_PRICES (unpriced models count 0), by provider and model.",
  labelNames: ["provider", "model"],
  registers: [],
});

export const llmMetrics = [tokens, cost];

/** Workflows name their models: past this many distinct ones in a process, a model is counted as `other`. */
const MAX_MODELS = 100;
const models = new BoundedLabel(MAX_MODELS);

/**
 * One call's accounting (run/steps/ai/step-calls.ts). Providers are the operator's (WF_LLM_PROVIDERS), a bounded set.
 */
export function countLlmCall(
  provider: string,
  model: string,
  usage: { promptTokens: number; completionTokens: number; costUsd: number },
): void {
  const labels = { provider, model: models.of(model) };
  tokens.inc({ ...labels, type: "input" }, usage.promptTokens);
  tokens.inc({ ...labels, type: "output" }, usage.completionTokens);
  cost.inc(labels, usage.costUsd);
}
