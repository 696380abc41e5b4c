import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { graph, type CanvasGraph } from "@wf/shared/canvas";
import { shownGraph } from "./canvas-sync";

/** How long typing pauses before the canvas reads the text again. */
export const GRAPH_DELAY_MS = 150;

interface Read {
  /** The graph of `text`, problems and all. */
  current: CanvasGraph;
  text: string;
  /** The last text that validated, and its graph. */
  good: { graph: CanvasGraph; text: string } | null;
}

function read(current: CanvasGraph, text: string, good: Read["good"]): Read {
  return { current, text, good: current.issues.length === 0 ? { graph: current, text } : good };
}

export interface WorkflowGraph extends Read {
  /** What the canvas draws (see shownGraph). */
  shown: CanvasGraph;
  /** The graph of a text: computed once per text. */
  graphOf(text: string): CanvasGraph;
  /** Reads the text again after a pause in typing, or at once (`now`: an edit made on the canvas, which should show at once). */
  update(text: string, now?: boolean): void;
}

/** The editor's text as the canvas's graph, kept up with the typing. */
export function useWorkflowGraph(initial: string): WorkflowGraph {
  const cache = useRef<{ text: string; graph: CanvasGraph } | null>(null);
  const graphOf = useCallback((text: string) => {
    if (cache.current?.text !== text) cache.current = { text, graph: graph(text) };
    return cache.current.graph;
  }, []);
  const [state, setState] = useState(() => read(graphOf(initial), initial, null));
  const timer = useRef<number | undefined>(undefined);
  const update = useCallback(
    (text: string, now = false) => {
      window.clearTimeout(timer.current);
      const run = () => {
        const next = graphOf(text);
        setState((prev) => (prev.text === text ? prev : read(next, text, prev.good)));
      };
      if (now) run();
      else timer.current = window.setTimeout(run, GRAPH_DELAY_MS);
    },
    [graphOf],
  );
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const shown = useMemo(() => shownGraph(state.current, state.good?.graph ?? null), [state]);
  return { ...state, shown, graphOf, update };
}
