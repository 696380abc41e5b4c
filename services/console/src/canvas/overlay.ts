// Apart from WorkflowCanvas.tsx, which renders the nodes whose parts (Gutter, RunFacts) read these.

export type BreakpointKind = "before" | "after" | "on_error";

/**
 * A run or a debug session on a node. `status` is a step's status (`COMPLETED`…), or `REUSED` for
 * a step a rerun took over from the run it reruns. `items` are the runs of a step in a foreach
 * (or a foreach's items): the node lists them, and clicking one calls `onSelect` with its `path`.
 */
export interface NodeOverlay {
  status?: string;
  durationMs?: number | null;
  attempts?: number;
  tokens?: number | null;
  costUsd?: number | null;
  paused?: boolean;
  /** How many points of the step (its items') wait their turn behind a debug run's pause elsewhere. */
  waiting?: number;
  /** Reused as a debugger's `set` left it in the run rerun (the step or a step in it): not what the step gave. */
  edited?: boolean;
  breakpoints?: ("before" | "after" | "on_error")[];
  items?: { label: string; status: string; path: string }[];
}
