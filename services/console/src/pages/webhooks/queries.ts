import { useQuery } from "@tanstack/react-query";
import { api, query } from "../../api/client";
import type { ApiKeyList, WebhookList, WebhookStats, WebhookView, WorkflowDetail, WorkflowList } from "../../api/types";

/** The cache keys of this page's data, so that a change can refresh exactly what it touched. */
export const webhookKeys = {
  lists: ["webhooks", "list"] as const,
  list: (page: number) => ["webhooks", "list", page] as const,
  one: (id: string) => ["webhooks", "one", id] as const,
  stats: (id: string) => ["webhooks", "stats", id] as const,
  workflowChoices: ["webhooks", "choices", "workflows"] as const,
  keyChoices: ["webhooks", "choices", "keys"] as const,
  variables: (workflowId: string) => ["webhooks", "variables", workflowId] as const,
};

export const LIST_SIZE = 20;
const STATS_REFRESH_MS = 5_000;
/** One page of the largest size: the picker and the list's names cover the newest 200 workflows. */
const WORKFLOW_CHOICES = 200;

export function useWebhooks(page: number) {
  return useQuery({
    queryKey: webhookKeys.list(page),
    queryFn: ({ signal }) =>
      api<WebhookList>("GET", `/api/webhooks${query({ page, size: LIST_SIZE })}`, undefined, signal),
  });
}

export function useWebhook(id: string) {
  return useQuery({
    queryKey: webhookKeys.one(id),
    queryFn: ({ signal }) => api<WebhookView>("GET", `/api/webhooks/${encodeURIComponent(id)}`, undefined, signal),
  });
}

/** Counts are written about a second after each trigger (docs/webhooks.md, Stats): polled, not pushed. */
export function useWebhookStats(id: string) {
  return useQuery({
    queryKey: webhookKeys.stats(id),
    queryFn: ({ signal }) =>
      api<WebhookStats>("GET", `/api/webhooks/${encodeURIComponent(id)}/stats`, undefined, signal),
    refetchInterval: STATS_REFRESH_MS,
  });
}

export function useWorkflowChoices() {
  return useQuery({
    queryKey: webhookKeys.workflowChoices,
    queryFn: ({ signal }) =>
      api<WorkflowList>("GET", `/api/console/workflows${query({ limit: WORKFLOW_CHOICES })}`, undefined, signal),
  });
}

export function useKeyChoices() {
  return useQuery({
    queryKey: webhookKeys.keyChoices,
    queryFn: ({ signal }) => api<ApiKeyList>("GET", "/api/console/keys", undefined, signal),
  });
}

/**
 * The variables the workflow declares, for the form to check a mapping against and the curl line
 * to set: none asked for before a workflow is chosen.
 */
export function useWorkflowVariables(workflowId: string) {
  return useQuery({
    queryKey: webhookKeys.variables(workflowId),
    queryFn: ({ signal }) =>
      api<WorkflowDetail>("GET", `/api/console/workflows/${encodeURIComponent(workflowId)}`, undefined, signal),
    select: (detail) => detail.variables,
    enabled: workflowId !== "",
  });
}
