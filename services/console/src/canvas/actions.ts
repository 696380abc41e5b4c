import { createContext } from "react";
import type { IssueMark } from "./elements";
import type { BreakpointKind } from "./overlay";

/** What a node's own controls do, handed down by the canvas so that node data stays plain values. */
export interface CanvasActions {
  selected: string | null;
  select(id: string): void;
  gutterClick: ((id: string, kind: BreakpointKind) => void) | undefined;
  /** A problem's mark clicked: the page puts the editor's cursor on it. */
  issueClick: ((issue: IssueMark) => void) | undefined;
}

export const CanvasActionsContext = createContext<CanvasActions>({
  selected: null,
  select: () => {},
  gutterClick: undefined,
  issueClick: undefined,
});
