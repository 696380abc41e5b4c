import { nodeAt, type CanvasGraph, type CanvasNode } from "@wf/shared/canvas";
import { lineEdits, linesBefore, type LineSpan } from "./lines-before";
import { isContent, placeWritten, type Place } from "./written-lines";

/** A text and its graph. */
interface Version {
  graph: CanvasGraph;
  text: string;
}

/** The editor's text as the canvas read it last. */
export interface Read {
  /** The graph of `text`, problems and all. */
  current: CanvasGraph;
  text: string;
  /** The last text that validated (or whose only problems are references to missing steps), and its graph. */
  good: Version | null;
}

/** The innermost step of `graph` whose lines hold all of `span`. */
function stepOver(graph: CanvasGraph, span: LineSpan): string | undefined {
  let best: CanvasNode | undefined;
  for (const node of graph.nodes) {
    const { start, end, startLine, endLine } = node.range;
    if (startLine <= span.first && span.last <= endLine && (!best || end - start < best.range.end - best.range.start))
      best = node;
  }
  return best?.id;
}

/**
 * Where a line of the text is on the last valid drawing, given the step `id` the text's own graph finds there. Lines
 * an edit since wrote between what was there go by their indentation (see placeWritten). Other lines go by the line
 * first: a text that does not parse has no trustworthy steps of its own, while the valid text's steps still hold its
 * lines, across the edits (see linesBefore), each edit on its own: mistakes made in several steps mark each. Where an
 * edit is too wide to tell, by the id, if the drawing has it.
 */
function placeOnGood(good: Version, text: string) {
  const old = good.text.split("\n");
  const now = text.split("\n");
  const edits = lineEdits(old, now);
  const before = linesBefore(good.text, text, edits);
  const drawn = new Set(good.graph.nodes.map((node) => node.id));
  return (line: number, id: string | undefined): Place => {
    const edit = edits.find((each) => each.from <= line && line <= each.newTo);
    return (
      (edit && placeWritten(good.graph, old, now, edit, line)) ?? {
        node: stepOver(good.graph, before(line)) ?? (id !== undefined && drawn.has(id) ? id : undefined),
      }
    );
  };
}

/**
 * The line a syntax error is about: its own, or, on a line with nothing to read, the last one above with something
 * (an unclosed quote or bracket is found where the text ends).
 */
function readLine(lines: readonly string[], line: number): number {
  let at = line;
  while (at > 1 && !isContent(lines[at - 1])) at--;
  return at;
}

/**
 * What the canvas draws: the text's graph while the text is valid; while it is not, the last valid graph, with each
 * of the text's problems on the step that holds its line there, or after the step a new step being written follows
 * (see placeOnGood; the others only in the banner). A text that was never valid is drawn as far as it could be read.
 */
export function shownGraph(read: Read): CanvasGraph {
  const { current, text, good } = read;
  if (!good || good.graph === current) return current;
  const place = placeOnGood(good, text);
  const lines = text.split("\n");
  const lineOf = new Map(current.nodes.map((node) => [node.id, node.range.startLine]));
  return {
    ...good.graph,
    issues: current.issues.map((issue) => {
      const otherLine = issue.other === undefined ? undefined : lineOf.get(issue.other);
      return {
        ...issue,
        ...place(readLine(lines, issue.line), issue.node),
        other: otherLine === undefined ? undefined : place(otherLine, issue.other).node,
      };
    }),
  };
}

/**
 * The step drawn for the cursor at `offset` in the text: where the editor's cursor selects on the canvas. None in the
 * lines of a step being written, which is not drawn.
 */
export function shownNodeAt(read: Read, offset: number): string | undefined {
  const { current, text, good } = read;
  const here = nodeAt(current, text, offset);
  if (!good || good.graph === current) return here;
  const line = text.slice(0, offset).split("\n").length;
  return placeOnGood(good, text)(line, here).node;
}
