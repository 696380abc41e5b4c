import { memo } from "react";
import { Handle, Position, type NodeProps } from "@xyflow/react";
import type { Badge } from "@wf/shared/canvas";
import type { StepFlowNode } from "./elements";
import { Gutter } from "./Gutter";
import { PinMark } from "./PinMark";
import { ProblemMark } from "./ProblemMark";
import { RunFacts } from "./RunFacts";
import { stepLook } from "./step-types";

function classes(data: StepFlowNode["data"], selected: boolean): string {
  return [
    "wf-node",
    data.container ? "wf-node-container" : "",
    selected ? "is-selected" : "",
    data.overlay ? "has-run" : "",
    data.issues.length > 0 ? "has-issue" : "",
  ]
    .filter(Boolean)
    .join(" ");
}

function BadgeChip({ badge }: { badge: Pick<Badge, "kind" | "label"> }) {
  return (
    <span className={`wf-badge wf-badge-${badge.kind}`} title={badge.label}>
      {badge.label}
    </span>
  );
}

/**
 * A step: its type's glyph, its name, its type and badges (modifiers, the workflow's triggers on
 * the first step), a red mark when a problem points into it (and one below it for a problem in a new step being
 * written after it), and a run's facts when there is one.
 * A container is the same header on a box that its steps are drawn in.
 */
function StepNodeView({ id, data, selected }: NodeProps<StepFlowNode>) {
  const { name, issues, after, overlay } = data;
  const look = stepLook(data.type);
  return (
    <div className={classes(data, selected)} data-type={data.type} data-status={overlay?.status?.toLowerCase()}>
      <Handle type="target" position={Position.Top} id="in" isConnectable={false} />
      <Handle type="source" position={Position.Bottom} id="out" isConnectable={false} />
      <Handle
        type="target"
        position={Position.Right}
        id="data-in"
        className="wf-handle-data-in"
        isConnectable={false}
      />
      <Handle
        type="source"
        position={Position.Right}
        id="data-out"
        className="wf-handle-data-out"
        isConnectable={false}
      />
      <div className="wf-node-header">
        {data.gutter ? <Gutter id={id} name={name} set={overlay?.breakpoints ?? []} /> : null}
        <div className="wf-node-body">
          <div className="wf-node-title">
            <span className="wf-glyph" aria-hidden="true">
              {look.glyph}
            </span>
            <span className="wf-node-name">{name}</span>
            {data.pinned ? <PinMark /> : null}
            {issues.length > 0 ? (
              <ProblemMark issues={issues} label="Problem" className="wf-node-issue">
                !
              </ProblemMark>
            ) : null}
          </div>
          <div className="wf-node-meta">
            <span className="wf-node-type">{look.label}</span>
            {data.badges.map((badge, i) => (
              <BadgeChip key={`${badge.kind}:${i}`} badge={badge} />
            ))}
          </div>
          {overlay ? <RunFacts overlay={overlay} /> : null}
        </div>
      </div>
      {after.length > 0 ? (
        <ProblemMark issues={after} label={`Problem in a new step after ${name}`} className="wf-node-issue-after">
          ! new step
        </ProblemMark>
      ) : null}
    </div>
  );
}

export const StepNode = memo(StepNodeView);
