import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, query } from "../../api/client";
import type { UsageView } from "../../api/types";

/** The windows offered; the API takes any 1 to 90 days. */
export const WINDOWS = [7, 30, 90] as const;
const DEFAULT_WINDOW = 30;

/** A window from the URL, or the default when it names none of those offered. */
export function windowOf(param: string | null): number {
  const days = Number(param);
  return (WINDOWS as readonly number[]).includes(days) ? days : DEFAULT_WINDOW;
}

export function useUsage(days: number) {
  return useQuery({
    queryKey: ["usage", days],
    queryFn: ({ signal }) => api<UsageView>("GET", `/api/console/usage${query({ days })}`, undefined, signal),
    // Switching windows keeps the last report on screen (dimmed) instead of flashing a spinner.
    placeholderData: keepPreviousData,
  });
}
