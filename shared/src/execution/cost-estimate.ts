import { z } from "zod";

/**
 * What an `llm` or `agent` step's call would cost, made without calling the model: the output of
 * a step test with `estimateOnly` (docs/rerun.md#testing-one-step).
 */
export const CostEstimate = z.object({
  step: z.string(),
  type: z.enum(["llm", "agent"]),
  model: z.string(),
  price: z
    .object({ input: z.number(), output: z.number() })
    .nullable()
    .describe("USD per million tokens by WF_LLM_PRICES; null: the model has no price, and costs 0."),
  inputTokens: z.int().describe("The rendered messages of the (first) call, counted approximately."),
  outputTokens: z.int().describe("The answer's tokens assumed: see outputBasis."),
  outputBasis: z
    .enum(["last_run", "assumed"])
    .describe(
      "last_run: what the step's answers took in the execution the test takes its context from; assumed: a typical answer's 256 tokens (at most max_tokens).",
    ),
  maxOutputTokens: z.int().nullable().describe("The step's max_tokens; null when it sets none."),
  costUsd: z.number().describe("inputTokens and outputTokens at the model's prices."),
  maxCostUsd: z
    .number()
    .nullable()
    .describe("inputTokens and maxOutputTokens at the model's prices; null without max_tokens."),
  maxCalls: z
    .int()
    .describe(
      "Calls the step may make: 1 for an llm step (2 with output_schema, for a repair); an agent's max_turns, each resending the conversation.",
    ),
});
export type CostEstimate = z.infer<typeof CostEstimate>;
