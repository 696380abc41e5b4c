import type { WorkflowDetail, WorkflowRole } from "../../api/types";
import type { Positions } from "./layout-positions";
import { copyName, nameIn, withName } from "./workflow-file";

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

/**
 * What navigating here may carry: an imported file with mistakes, a copy of a workflow, or "open the run form" after a
 * first save.
 */
export interface Arrival {
  yaml?: string;
  fileName?: string;
  /** A copy's name, as its text now says. */
  name?: string;
  positions?: Positions;
  openRun?: boolean;
}

/** A new workflow's start: what the navigation carried, else the example picked (which counts as nothing to save). */
export function newStart(arrival: Arrival, template: { yaml: string }): Start {
  const yaml = arrival.yaml ?? template.yaml;
  return {
    id: null,
    name: arrival.name ?? arrival.fileName ?? "New workflow",
    yaml,
    version: null,
    role: "owner",
    pristine: arrival.yaml === undefined ? yaml : "",
    positions: arrival.positions ?? {},
  };
}

/**
 * What a copy of a workflow opens with, unsaved: its text named as a copy (the copy is a workflow of its own; runs,
 * versions, pins and sharing stay with the original), its steps where they were placed on the canvas.
 */
export function copyArrival(yaml: string, fallbackName: string, positions: Positions): Arrival {
  const name = copyName(nameIn(yaml) ?? fallbackName);
  return { yaml: withName(yaml, name), name, positions };
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
