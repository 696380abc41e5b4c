import { modelMatches, type ModelPrice, type PriceTable } from "@wf/shared/config";
import type { Usage } from "@wf/shared/execution";
import type { TokenUsage } from "./providers/types";

/** The price of a model: its own entry, else the first pattern that matches it. */
export function priceOf(table: PriceTable, model: string): ModelPrice | null {
  if (Object.hasOwn(table, model)) return table[model]!;
  for (const [pattern, price] of Object.entries(table)) if (modelMatches(pattern, model)) return price;
  return null;
}

/** USD for one call: prices are per million tokens. */
export function costOf(usage: TokenUsage, price: ModelPrice | null): number {
  if (price === null) return 0;
  return roundUsd((usage.promptTokens * price.input + usage.completionTokens * price.output) / 1_000_000);
}

export function addUsage(total: Usage, call: TokenUsage & { costUsd: number }): Usage {
  return {
    promptTokens: total.promptTokens + call.promptTokens,
    completionTokens: total.completionTokens + call.completionTokens,
    totalTokens: total.totalTokens + call.totalTokens,
    costUsd: roundUsd(total.costUsd + call.costUsd),
  };
}

/** Sums of binary fractions drift (0.1 + 0.2); a pico-dollar is far below any price. */
function roundUsd(x: number): number {
  return Math.round(x * 1e12) / 1e12;
}
