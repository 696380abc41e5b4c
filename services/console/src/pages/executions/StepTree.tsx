import { useState, type ReactNode } from "react";
import type { StepStatus, StepView } from "../../api/types";
import { EditedBadge } from "../../ui/EditedBadge";
import { WaitingBadge } from "../../ui/WaitingBadge";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatDuration } from "../../ui/format";
import { groupStatus, stepDuration, type TreeNode } from "./step-tree";
import { formatTokens, formatUsageCost } from "./usage-format";

interface Props {
  tree: TreeNode[];
  steps: Record<string, StepView>;
  now: number;
  selected: string | null;
  onSelect(path: string): void;
  /** The step a debug run waits at: marked in the tree. */
  pausedAt?: string | null;
  /** The steps other branches wait at, behind the pause, for their turn: marked in the tree. */
  waitingAt?: ReadonlySet<string>;
  /** What a step's row offers besides selecting it (rerun from a top-level step). */
  actions?: (path: string, topLevel: boolean) => ReactNode;
  /** Status and duration only, for a narrow column (the debugger's). */
  compact?: boolean;
  /** What a step without a record shows (unreachedStatus). */
  unreached?: StepStatus;
}

/**
 * The steps, foreach items and parallel branches nested as the workflow has them. Containers
 * start open and foreach items closed (a long list of items would bury the steps after it).
 */
export function StepTree({
  tree,
  steps,
  now,
  selected,
  onSelect,
  pausedAt,
  waitingAt,
  actions,
  compact = false,
  unreached = "PENDING",
}: Props) {
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const isOpen = (node: TreeNode) => (node.kind !== "item") !== toggled.has(node.key);
  const toggle = (key: string) =>
    setToggled((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  const rows: ReactNode[] = [];
  const emit = (node: TreeNode, depth: number) => {
    const open = isOpen(node);
    const expander =
      node.children.length > 0 ? (
        <button
          type="button"
          className="ghost expander"
          aria-expanded={open}
          aria-label={`${open ? "Collapse" : "Expand"} ${node.kind === "step" ? node.name : node.label}`}
          onClick={() => toggle(node.key)}
        >
          {open ? "▾" : "▸"}
        </button>
      ) : (
        <span className="expander-space" aria-hidden="true" />
      );
    if (node.kind === "step") {
      const st = steps[node.path];
      rows.push(
        <tr
          key={node.key}
          data-step-path={node.path}
          className={`step-row${selected === node.path ? " selected" : ""}${pausedAt === node.path ? " paused-here" : waitingAt?.has(node.path) ? " waiting-here" : ""}`}
        >
          <td>
            <div className="step-name" style={{ paddingLeft: depth * 18 }}>
              {expander}
              <button
                type="button"
                className="link-button"
                onClick={() => onSelect(node.path)}
                title={node.path}
                aria-current={selected === node.path ? "true" : undefined}
              >
                {node.name}
              </button>
              {st?.pinned ? (
                <span className="badge reused" title="Taken from the step's pinned output: it did not run here">
                  pinned
                </span>
              ) : st?.reused ? (
                <span className="badge reused" title="Taken from the execution this one reruns: it did not run here">
                  reused
                </span>
              ) : null}
              {st?.edited ? <EditedBadge /> : null}
              {pausedAt === node.path ? (
                <span className="badge status-paused">paused here</span>
              ) : waitingAt?.has(node.path) ? (
                <WaitingBadge />
              ) : null}
            </div>
          </td>
          <td className="muted">{node.type}</td>
          <td>
            <StatusBadge status={st?.status ?? unreached} />
          </td>
          <td className="num">{formatDuration(stepDuration(st, now))}</td>
          {compact ? null : (
            <>
              <td className="num">{st && st.attempts > 0 ? st.attempts : "—"}</td>
              <td className="num">{formatTokens(st?.usage)}</td>
              <td className="num">{formatUsageCost(st?.usage)}</td>
            </>
          )}
          {actions ? <td className="actions">{actions(node.path, node.topLevel)}</td> : null}
        </tr>,
      );
    } else {
      const status = groupStatus(node, steps);
      rows.push(
        <tr key={node.key} className="group-row">
          <td colSpan={2}>
            <div className="step-name" style={{ paddingLeft: depth * 18 }}>
              {expander}
              <span className="muted">{node.label}</span>
            </div>
          </td>
          <td>{status ? <StatusBadge status={status} /> : null}</td>
          <td colSpan={(compact ? 1 : 4) + (actions ? 1 : 0)} />
        </tr>,
      );
    }
    if (open) for (const child of node.children) emit(child, depth + 1);
  };
  for (const node of tree) emit(node, 0);

  return (
    <div className="table-wrap">
      <table className="steps-table" aria-label="Steps">
        <thead>
          <tr>
            <th>Step</th>
            <th>Type</th>
            <th>Status</th>
            <th className="num">Duration</th>
            {compact ? null : (
              <>
                <th className="num">Attempts</th>
                <th className="num">Tokens</th>
                <th className="num">Cost</th>
              </>
            )}
            {actions ? <th aria-label="Actions" /> : null}
          </tr>
        </thead>
        <tbody>{rows}</tbody>
      </table>
    </div>
  );
}
