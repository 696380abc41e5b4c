import { useQuery } from "@tanstack/react-query";
import type { WorkflowPin } from "../../api/types";
import { fetchWorkflow, workflowKeys } from "./queries";

const NONE: Record<string, WorkflowPin> = {};

/** A saved workflow's pinned outputs by step name, as its detail gives them; a pin or unpin refetches the detail. */
export function usePins(workflowId: string | null): Record<string, WorkflowPin> {
  const detail = useQuery({
    queryKey: workflowKeys.detail(workflowId ?? ""),
    queryFn: ({ signal }) => fetchWorkflow(workflowId!, signal),
    enabled: workflowId !== null,
  });
  return detail.data?.pins ?? NONE;
}
