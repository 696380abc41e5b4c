import { useMemo, useRef, useState } from "react";
import { applyNodeChanges, type NodeChange } from "@xyflow/react";
import type { CanvasGraph } from "@wf/shared/canvas";
import { flowNodes, keepUnchanged, type FlowNode, type NodeOptions } from "./elements";
import { layoutGraph, structureKey, type CanvasLayout, type LayoutOptions } from "./layout";
import { useSteadyHandler } from "./useSteadyHandler";

/**
 * The layout and xyflow's nodes for a graph. Laid out again only when the lists change (typing
 * inside a step leaves every box where it is), and a node that shows the same keeps its object,
 * which xyflow then does not draw again. While a node is dragged xyflow moves it here;
 * `settle` puts every node back where the props say, once it is dropped.
 */
export function useFlowNodes(
  graph: CanvasGraph,
  positions: LayoutOptions["positions"],
  options: NodeOptions & { overlaid: boolean },
) {
  const { selected, also, overlay, pinned, editable, gutter, overlaid } = options;
  const structure = structureKey(graph);
  const layout: CanvasLayout = useMemo(
    () => layoutGraph(graph, { positions, overlay: overlaid, gutter }),
    [structure, positions, overlaid, gutter],
  );
  const previous = useRef<FlowNode[]>([]);
  const derived = useMemo(() => {
    previous.current = keepUnchanged(
      previous.current,
      flowNodes(graph, layout, { selected, also, overlay, pinned, editable, gutter }),
    );
    return previous.current;
  }, [graph, layout, selected, also, overlay, pinned, editable, gutter]);

  const [local, setLocal] = useState({ from: derived, nodes: derived });
  const nodes = local.from === derived ? local.nodes : derived;
  const onNodesChange = useSteadyHandler((changes: NodeChange<FlowNode>[]) => {
    const kept = changes.filter((change) => change.type === "position" || change.type === "dimensions");
    if (kept.length > 0)
      setLocal((cur) => ({ from: derived, nodes: applyNodeChanges(kept, cur.from === derived ? cur.nodes : derived) }));
  });
  const settle = () => setLocal({ from: derived, nodes: derived });
  return { layout, nodes, onNodesChange, settle };
}
