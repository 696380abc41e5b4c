import { useMemo } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { BreakpointsAccepted, ExecutionView } from "../../api/types";
import type { BreakpointKind } from "../../canvas/overlay";
import { useToast } from "../../ui/toast";
import { putBreakpoints, type BreakpointsEdit } from "./breakpoints-put";
import { breakpointMarks, toggleMark } from "./canvas-breakpoints";
import { hasEnded } from "./execution-status";
import { fetchExecution, keys } from "./queries";
import { breakpointPaths } from "./step-tree";

/**
 * Replaces a debug run's breakpoints (PUT, the whole list, made on the revision the page shows), which the run takes
 * from its next breakpoint check. Changed meanwhile (another tab, `wf debug`): the list is reloaded and the edit made
 * again on it, so that neither change is lost. One per page: the panel and the canvas's marks change the list through
 * it, so a refusal shows in the panel whichever made the change.
 */
export function useBreakpointsUpdate(executionId: string) {
  const queries = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: async (edit: BreakpointsEdit) => {
      const shown = queries.getQueryData<ExecutionView>(keys.execution(executionId));
      const reload = async () => {
        const view = await fetchExecution(executionId);
        queries.setQueryData(keys.execution(executionId), view);
        return view;
      };
      return putBreakpoints(edit, shown ?? (await reload()), reload, (body) =>
        api<BreakpointsAccepted>(
          "PUT",
          `/api/console/executions/${encodeURIComponent(executionId)}/debug/breakpoints`,
          body,
        ),
      );
    },
    onSuccess: (answer) => {
      // The page shows the list as changed (ids as the service gave them), and the revision the next change is made on.
      queries.setQueryData<ExecutionView>(
        keys.execution(executionId),
        (view) => view && { ...view, breakpoints: answer.breakpoints, breakpointsRevision: answer.revision },
      );
      toast("Breakpoints changed: the run uses them from its next breakpoint check");
    },
  });
}

export type BreakpointsUpdate = ReturnType<typeof useBreakpointsUpdate>;

/**
 * A debug run's step breakpoints as marks in the canvas's node gutters, each a click to set or
 * remove; none once the run has ended (its breakpoints no longer change). A click while a change
 * is on its way is dropped: the mark it clicked may be gone by then.
 */
export function useBreakpointMarks(view: ExecutionView, put: BreakpointsUpdate) {
  const stepPaths = useMemo(() => breakpointPaths(view.definition), [view.definition]);
  const marks = useMemo(() => breakpointMarks(view.breakpoints), [view.breakpoints]);
  if (!view.debug || hasEnded(view.status)) return { marks: undefined, onGutterClick: undefined };
  const onGutterClick = (node: string, kind: BreakpointKind) => {
    if (!put.isPending) put.mutate((current) => toggleMark(current, node, kind, stepPaths));
  };
  return { marks, onGutterClick };
}
