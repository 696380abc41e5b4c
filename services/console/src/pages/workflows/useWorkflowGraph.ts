import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { graph, isUnknownStepIssue, type CanvasGraph } from "@wf/shared/canvas";
import { shownGraph, type Read } from "./canvas-sync";
import { leadingThrottle } from "./leading-throttle";

/**
 * While typing goes on, the text is read again once three times what the last reading took has
 * passed since it ended: reading and drawing a long workflow (tens of milliseconds) then take no
 * more than about a third of the main thread, and the editor keeps the rest. A keystroke after a
 * pause is read at once.
 */
const REST_PER_READ = 3;

/**
 * Whether the canvas can draw a text as it is: it validates, or its only problems are references
 * to steps it no longer has (a step deleted while others read it): every step is there to draw,
 * and the problems are at the references' lines.
 */
function drawable(current: CanvasGraph): boolean {
  return current.issues.every((issue) => isUnknownStepIssue(issue));
}

function read(current: CanvasGraph, text: string, good: Read["good"]): Read {
  return { current, text, good: drawable(current) ? { graph: current, text } : good };
}

export interface WorkflowGraph extends Read {
  /** What the canvas draws (see shownGraph). */
  shown: CanvasGraph;
  /** The graph of a text: computed once per text. */
  graphOf(text: string): CanvasGraph;
  /** Reads the text again, as the typing allows (see REST_PER_READ), or at once (`now`: an edit made on the canvas). */
  update(text: string, now?: boolean): void;
}

/**
 * The editor's text as the canvas's graph, kept up with the typing. `onRead` hears of each text
 * read, in the same task: what it sets is drawn in the same render as the graph.
 */
export function useWorkflowGraph(initial: string, onRead: (read: Read) => void): WorkflowGraph {
  const cache = useRef<{ text: string; graph: CanvasGraph } | null>(null);
  const graphOf = useCallback((text: string) => {
    if (cache.current?.text !== text) cache.current = { text, graph: graph(text) };
    return cache.current.graph;
  }, []);
  const [state, setState] = useState(() => read(graphOf(initial), initial, null));
  // The last read: `onRead` is given it in the task that reads it, before React makes it the state.
  const latest = useRef(state);
  const heard = useRef(onRead);
  heard.current = onRead;
  const reads = useMemo(
    () =>
      leadingThrottle((text: string) => {
        const prev = latest.current;
        if (prev.text !== text) latest.current = read(graphOf(text), text, prev.good);
        setState(latest.current);
        heard.current(latest.current);
      }, REST_PER_READ),
    [graphOf],
  );
  const update = useCallback((text: string, now = false) => (now ? reads.flush(text) : reads.push(text)), [reads]);
  useEffect(() => () => reads.cancel(), [reads]);
  const shown = useMemo(() => shownGraph(state), [state]);
  return { ...state, shown, graphOf, update };
}
