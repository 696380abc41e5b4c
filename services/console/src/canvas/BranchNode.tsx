import { memo } from "react";
import type { NodeProps } from "@xyflow/react";
import type { BranchFlowNode } from "./elements";

/** A parallel's branch: a labelled box its steps are drawn in. */
function BranchNodeView({ data }: NodeProps<BranchFlowNode>) {
  return (
    <div className="wf-branch">
      <span className="wf-branch-name">{data.branch}</span>
    </div>
  );
}

export const BranchNode = memo(BranchNodeView);
