import { BaseEdge, type EdgeProps } from "@xyflow/react";

/**
 * A step reading another: an arc out to the right of the steps between the two, reaching the
 * further out the further apart they are, so that arcs over one another stay apart.
 */
export function DataEdge({ sourceX, sourceY, targetX, targetY, markerEnd, interactionWidth }: EdgeProps) {
  const reach = Math.min(120, 20 + Math.abs(targetY - sourceY) * 0.08);
  const out = Math.max(sourceX, targetX) + reach;
  return (
    <BaseEdge
      path={`M ${sourceX},${sourceY} C ${out},${sourceY} ${out},${targetY} ${targetX},${targetY}`}
      markerEnd={markerEnd}
      interactionWidth={interactionWidth}
    />
  );
}
