import type { ExecutionStatus, TriggerSource } from "../../api/types";

/** What the list asks the API for (GET /api/console/executions): every field optional. */
export interface ListFilters {
  workflowId?: string;
  status?: ExecutionStatus;
  triggerSource?: TriggerSource;
  since?: number;
  until?: number;
}

export const STATUSES: readonly ExecutionStatus[] = [
  "PENDING",
  "RUNNING",
  "AWAITING_APPROVAL",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "INTERRUPTED",
];
export const TRIGGER_SOURCES: readonly TriggerSource[] = [
  "console",
  "open_api",
  "webhook",
  "schedule",
  "chained",
  "step_test",
];

/** Ranges that stay relative in a bookmark: "the last 24 hours" means the 24 hours before the page opens. */
export const RANGES = [
  { value: "1h", label: "Last hour", ms: 3_600_000 },
  { value: "24h", label: "Last 24 hours", ms: 86_400_000 },
  { value: "7d", label: "Last 7 days", ms: 7 * 86_400_000 },
  { value: "30d", label: "Last 30 days", ms: 30 * 86_400_000 },
] as const;

/** The filters as the URL's query string holds them: what a person bookmarks or shares. */
export interface UrlFilters {
  workflowId: string;
  status: string;
  triggerSource: string;
  /** A RANGES value, "custom" (since/until below), or "" for any time. */
  range: string;
  /** datetime-local text (local time), for a custom range. */
  since: string;
  until: string;
}

export const NO_FILTERS: UrlFilters = {
  workflowId: "",
  status: "",
  triggerSource: "",
  range: "",
  since: "",
  until: "",
};

export function readUrlFilters(params: URLSearchParams): UrlFilters {
  const get = (name: keyof UrlFilters) => params.get(name) ?? "";
  return {
    workflowId: get("workflowId"),
    status: get("status"),
    triggerSource: get("triggerSource"),
    range: get("range"),
    since: get("since"),
    until: get("until"),
  };
}

export function writeUrlFilters(filters: UrlFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    const custom = name === "since" || name === "until";
    if (value !== "" && (!custom || filters.range === "custom")) params.set(name, value);
  }
  return params;
}

function localTime(text: string): number | undefined {
  if (text === "") return undefined;
  const ms = new Date(text).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/** The API's filters; a value the API would refuse (a hand-edited URL) is left out rather than failing the page. */
export function toListFilters(url: UrlFilters, now: number): ListFilters {
  const out: ListFilters = {};
  if (url.workflowId !== "") out.workflowId = url.workflowId;
  if ((STATUSES as readonly string[]).includes(url.status)) out.status = url.status as ExecutionStatus;
  if ((TRIGGER_SOURCES as readonly string[]).includes(url.triggerSource))
    out.triggerSource = url.triggerSource as TriggerSource;
  const preset = RANGES.find((r) => r.value === url.range);
  if (preset) out.since = now - preset.ms;
  if (url.range === "custom") {
    const since = localTime(url.since);
    const until = localTime(url.until);
    if (since !== undefined) out.since = since;
    // The minute a person picks is inclusive: until its last millisecond.
    if (until !== undefined) out.until = until + 59_999;
  }
  return out;
}

export function hasFilters(url: UrlFilters): boolean {
  return Object.values(url).some((v) => v !== "");
}
