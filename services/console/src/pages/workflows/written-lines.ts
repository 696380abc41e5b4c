import type { CanvasGraph, CanvasNode } from "@wf/shared/canvas";
import type { LineEdit } from "./lines-before";

/** Where the canvas shows a problem: on a step of its drawing, or after one, in a step being written there. */
export interface Place {
  node: string | undefined;
  after?: string;
}

/** A line with something to read: not blank, not a comment alone. */
export function isContent(line: string | undefined): line is string {
  const trimmed = line?.trim() ?? "";
  return trimmed !== "" && !trimmed.startsWith("#");
}

function indent(line: string): number {
  return line.length - line.trimStart().length;
}

function size(node: CanvasNode): number {
  return node.range.end - node.range.start;
}

/**
 * Where a line the edit wrote between the lines of the last valid text goes, as YAML reads it: by its indentation
 * against the steps that hold the last line with something to read above the edit, innermost first. Deeper than a
 * step's `-`, the line is part of that step (a new field, say). At its `-`, and an item itself (`- `), it starts a new
 * step after it (not drawn yet), or, with the step's lines going on below the edit, in it. Otherwise it is for the
 * step around it, and so on out. The line counts as deep as the shallowest line written from the edit's start to it:
 * a step being written is the lines below its `- `.
 *
 * `before` and `lines` are the lines of the last valid text and of the text now. Undefined for an edit that replaced
 * more than blank and comment lines (the steps that held those tell), and for lines no step's indentation takes.
 */
export function placeWritten(
  graph: CanvasGraph,
  before: readonly string[],
  lines: readonly string[],
  edit: LineEdit,
  line: number,
): Place | undefined {
  if (line < edit.from || line > edit.newTo || before.slice(edit.oldFrom - 1, edit.oldTo).some(isContent))
    return undefined;
  const outer = lines
    .slice(edit.from - 1, line)
    .filter(isContent)
    .reduce<string | undefined>(
      (out, each) => (out === undefined || indent(each) < indent(out) ? each : out),
      undefined,
    );
  if (outer === undefined) return undefined;
  let above = edit.oldFrom - 1;
  while (above > 0 && !isContent(before[above - 1])) above--;
  const holders = graph.nodes
    .filter((node) => node.range.startLine <= above && above <= node.range.endLine)
    .sort((a, b) => size(a) - size(b));
  const col = indent(outer);
  const item = /^-(\s|$)/.test(outer.trimStart());
  for (const node of holders) {
    const dash = indent(before[node.range.startLine - 1] ?? "");
    if (col > dash) return { node: node.id };
    if (col === dash && item)
      return node.range.endLine > above ? { node: node.id } : { node: undefined, after: node.id };
  }
  return undefined;
}
