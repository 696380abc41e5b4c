import { nodeAt, type CanvasGraph, type CanvasNode } from "@wf/shared/canvas";
import { linesBefore, type LineSpan } from "./lines-before";

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
 * Which step of the last valid drawing a line of the text is in, given the step `id` the text's own graph finds there.
 * By the line first: a text that does not parse has no trustworthy steps of its own, while the valid text's steps
 * still hold its lines, across the edit since (see linesBefore). Where the edit is too wide to tell, by the id, if the
 * drawing has it.
 */
function placeOnGood(good: Version, text: string) {
  const before = linesBefore(good.text, text);
  const drawn = new Set(good.graph.nodes.map((node) => node.id));
  return (line: number, id: string | undefined): string | undefined =>
    stepOver(good.graph, before(line)) ?? (id !== undefined && drawn.has(id) ? id : undefined);
}

/**
 * What the canvas draws: the text's graph while the text is valid; while it is not, the last valid graph, with each
 * of the text's problems on the step that holds its line there (see placeOnGood; the others only in the banner). A
 * text that was never valid is drawn as far as it could be read.
 */
export function shownGraph(read: Read): CanvasGraph {
  const { current, text, good } = read;
  if (!good || good.graph === current) return current;
  const place = placeOnGood(good, text);
  const lineOf = new Map(current.nodes.map((node) => [node.id, node.range.startLine]));
  return {
    ...good.graph,
    issues: current.issues.map((issue) => {
      const otherLine = issue.other === undefined ? undefined : lineOf.get(issue.other);
      return {
        ...issue,
        node: place(issue.line, issue.node),
        other: otherLine === undefined ? undefined : place(otherLine, issue.other),
      };
    }),
  };
}

/** The step drawn for the cursor at `offset` in the text: where the editor's cursor selects on the canvas. */
export function shownNodeAt(read: Read, offset: number): string | undefined {
  const { current, text, good } = read;
  const here = nodeAt(current, text, offset);
  if (!good || good.graph === current) return here;
  const line = text.slice(0, offset).split("\n").length;
  return placeOnGood(good, text)(line, here);
}
