import { useCallback, useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { CanvasGraph, CanvasOperation, EditSuccess } from "@wf/shared/canvas";
import type { WorkflowDetail } from "../../api/types";
import { useToast } from "../../ui/toast";
import { positionsAfter, type Positions } from "./layout-positions";
import { saveLayout, workflowKeys } from "./queries";

/** A person drags a node in several small moves: the layout is stored once they pause. */
const SAVE_DELAY_MS = 600;

/**
 * The canvas positions a person chose, stored beside the workflow (not a new version of it) a
 * moment after each change. A workflow not stored yet keeps them here until `storeFor` its new id.
 */
export function useLayoutPositions(workflowId: string | null, initial: Positions, canEdit: boolean) {
  const queries = useQueryClient();
  const toast = useToast();
  const [positions, setPositions] = useState<Positions>(initial);
  // What is still to be stored, and where: a page left before the pause stores it on its way out.
  const pending = useRef<{ id: string; positions: Positions } | null>(null);

  const store = useCallback(
    async (id: string, what: Positions) => {
      const stored = await saveLayout(id, { ...what });
      queries.setQueryData<WorkflowDetail>(workflowKeys.detail(id), (old) => (old ? { ...old, layout: stored } : old));
    },
    [queries],
  );
  const flush = useCallback(() => {
    const due = pending.current;
    pending.current = null;
    if (due)
      store(due.id, due.positions).catch((err: Error) =>
        toast(`The canvas layout was not stored: ${err.message}`, "error"),
      );
  }, [store, toast]);

  useEffect(() => {
    if (pending.current === null) return;
    const timer = window.setTimeout(flush, SAVE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [positions, flush]);
  useEffect(() => flush, [flush]);

  const change = (next: Positions) => {
    if (next === positions) return;
    if (workflowId !== null && canEdit) pending.current = { id: workflowId, positions: next };
    setPositions(next);
  };

  return {
    positions,
    move: (moved: Positions) => change({ ...positions, ...moved }),
    afterOperation: (op: CanvasOperation, result: EditSuccess, drawn: CanvasGraph) =>
      change(positionsAfter(positions, op, result, drawn)),
    /** Stores the positions of a workflow saved for the first time, before its editor opens under its id. */
    storeFor: (id: string) => (Object.keys(positions).length > 0 ? store(id, positions) : Promise.resolve()),
  };
}
