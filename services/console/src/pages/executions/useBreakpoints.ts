import { useMemo } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { BreakpointInput, BreakpointsAccepted, ExecutionView } from "../../api/types";
import type { BreakpointKind } from "../../canvas/overlay";
import { useToast } from "../../ui/toast";
import { breakpointMarks, toggleMark } from "./canvas-breakpoints";
import { hasEnded } from "./execution-status";
import { keys } from "./queries";
import { breakpointPaths } from "./step-tree";

/**
 * Replaces a debug run's breakpoints (PUT, the whole list), which the run takes from its next
 * breakpoint check. One per page: the panel and the canvas's marks change the list through it, so
 * a refusal shows in the panel whichever made the change.
 */
export function useBreakpointsUpdate(executionId: string) {
  const queries = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: (next: BreakpointInput[]) =>
      api<BreakpointsAccepted>("PUT", `/api/console/executions/${encodeURIComponent(executionId)}/debug/breakpoints`, {
        breakpoints: next,
      }),
    onSuccess: (answer) => {
      // The executor applies the list on its own time; the page shows what was sent (ids as the service gave them).
      queries.setQueryData<ExecutionView>(
        keys.execution(executionId),
        (view) => view && { ...view, breakpoints: answer.breakpoints },
      );
      toast("Breakpoints sent: the run uses them from its next breakpoint check");
    },
  });
}

export type BreakpointsUpdate = ReturnType<typeof useBreakpointsUpdate>;

/**
 * A debug run's step breakpoints as marks in the canvas's node gutters, each a click to set or
 * remove; none once the run has ended (its breakpoints no longer change). A click while a change
 * is on its way is dropped: it would be made on the list before that change.
 */
export function useBreakpointMarks(view: ExecutionView, put: BreakpointsUpdate) {
  const stepPaths = useMemo(() => breakpointPaths(view.definition), [view.definition]);
  const marks = useMemo(() => breakpointMarks(view.breakpoints), [view.breakpoints]);
  if (!view.debug || hasEnded(view.status)) return { marks: undefined, onGutterClick: undefined };
  const onGutterClick = (node: string, kind: BreakpointKind) => {
    if (!put.isPending) put.mutate(toggleMark(view.breakpoints, node, kind, stepPaths));
  };
  return { marks, onGutterClick };
}
