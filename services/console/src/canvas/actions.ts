import { createContext } from "react";
import type { BreakpointKind } from "./overlay";

/** What a node's own controls do, handed down by the canvas so that node data stays plain values. */
export interface CanvasActions {
  selected: string | null;
  select(id: string): void;
  gutterClick: ((id: string, kind: BreakpointKind) => void) | undefined;
}

export const CanvasActionsContext = createContext<CanvasActions>({
  selected: null,
  select: () => {},
  gutterClick: undefined,
});
