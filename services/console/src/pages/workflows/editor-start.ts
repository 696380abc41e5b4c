import type { WorkflowDetail, WorkflowRole } from "../../api/types";
import type { Positions } from "./layout-positions";

/** What the editor opens with: a stored workflow, or (id null) a new one that is not stored yet. */
export interface Start {
  id: string | null;
  name: string;
  yaml: string;
  version: number | null;
  role: WorkflowRole;
  /** The text that counts as "nothing to save": a template is, an imported file with mistakes is not. */
  pristine: string;
  /** Where a person placed steps on the canvas. */
  positions: Positions;
}

/** What navigating here may carry: an imported file with mistakes, or "open the run form" after a first save. */
export interface Arrival {
  yaml?: string;
  fileName?: string;
  openRun?: boolean;
}

export const fromDetail = (w: WorkflowDetail): Start => ({
  id: w.id,
  name: w.name,
  yaml: w.yaml,
  version: w.version,
  role: w.role,
  pristine: w.yaml,
  positions: w.layout.positions,
});
