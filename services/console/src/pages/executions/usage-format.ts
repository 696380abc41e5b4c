import type { Usage } from "../../api/types";
import { formatCost, formatNumber } from "../../ui/format";

/** Whether LLM calls were made at all: a run without any has no cost to show, rather than "$0". */
export function hasUsage(u: Usage | null | undefined): u is Usage {
  return !!u && (u.totalTokens > 0 || u.costUsd > 0);
}

export function formatTokens(u: Usage | null | undefined): string {
  return hasUsage(u) ? formatNumber(u.totalTokens) : "—";
}

export function formatUsageCost(u: Usage | null | undefined): string {
  return hasUsage(u) ? formatCost(u.costUsd) : "—";
}
