import { lazy, Suspense, useMemo, type ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import type { ExecutionView } from "../../api/types";
import { Loading } from "../../ui/states";
import { fetchWorkflow, workflowKeys } from "../workflows/queries";
import type { BreakpointKind } from "../../canvas/overlay";
import { nodeOfPath, stepToOpen } from "./node-paths";
import { runGraph } from "./run-graph";
import { followedNode, runOverlay } from "./run-overlay";
import { unreachedStatus, type TreeNode } from "./step-tree";
import { StepTree } from "./StepTree";
import { waitingTurns } from "./waiting-turns";
import { RunTimeline } from "./RunTimeline";

/** The canvas is the page's largest download: loaded only when a run is shown on it. */
const WorkflowCanvas = lazy(() => import("../../canvas/WorkflowCanvas"));

interface Props {
  view: ExecutionView;
  tree: TreeNode[];
  now: number;
  selected: string | null;
  onSelect(path: string | null): void;
  /** The list's row actions (rerun from a top-level step). */
  actions?: (path: string, topLevel: boolean) => ReactNode;
  /** The list with status and duration only, for the debugger's narrower column. */
  compact?: boolean;
  /** A debug run's breakpoints on the nodes. */
  marks?: Record<string, BreakpointKind[]>;
  /** Given: a click on a node's mark sets or removes that breakpoint. */
  onGutterClick?(node: string, kind: BreakpointKind): void;
}

type StepsView = "canvas" | "list" | "timeline";

/**
 * A run's steps on the workflow's canvas, live, as the nested list or as a timeline (`?steps=list`
 * or `timeline` keeps the choice in the address). The canvas is the default when it can be drawn.
 */
export function RunSteps({ view, tree, now, selected, onSelect, actions, compact, marks, onGutterClick }: Props) {
  const [params, setParams] = useSearchParams();
  const drawn = useMemo(() => runGraph(view.definition), [view.definition]);
  const asked = params.get("steps");
  const shown: StepsView = asked === "timeline" ? "timeline" : drawn !== null && asked !== "list" ? "canvas" : "list";
  const pausedAt = view.pause?.stepPath ?? null;
  const waitingAt = useMemo(() => new Set(waitingTurns(view).map((w) => w.stepPath)), [view]);
  const choose = (steps: StepsView) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (steps === "canvas") next.delete("steps");
        else next.set("steps", steps);
        return next;
      },
      { replace: true },
    );
  const views: StepsView[] = drawn === null ? ["list", "timeline"] : ["canvas", "list", "timeline"];

  return (
    <section className="card stack" aria-label="Steps">
      <div className="row between">
        <h2>Steps</h2>
        <div className="steps-views" role="group" aria-label="Show the steps as">
          {views.map((v) => (
            <button
              key={v}
              type="button"
              aria-pressed={shown === v}
              className={shown === v ? "primary" : undefined}
              onClick={() => choose(v)}
            >
              {VIEW_NAMES[v]}
            </button>
          ))}
        </div>
      </div>
      {shown === "canvas" && drawn !== null ? (
        <RunCanvas
          view={view}
          drawn={drawn}
          now={now}
          selected={selected}
          onSelect={(clicked) => onSelect(clicked === null ? null : stepToOpen(clicked, view.steps, pausedAt))}
          waitingAt={waitingAt}
          marks={marks}
          onGutterClick={onGutterClick}
        />
      ) : shown === "timeline" ? (
        <RunTimeline
          tree={tree}
          steps={view.steps}
          now={now}
          selected={selected}
          onSelect={onSelect}
          live={view.status === "RUNNING"}
        />
      ) : (
        <StepTree
          tree={tree}
          steps={view.steps}
          now={now}
          selected={selected}
          onSelect={onSelect}
          pausedAt={pausedAt}
          waitingAt={waitingAt}
          actions={actions}
          compact={compact}
          unreached={unreachedStatus(view.status)}
        />
      )}
    </section>
  );
}

const VIEW_NAMES: Record<StepsView, string> = { canvas: "Canvas", list: "List", timeline: "Timeline" };

/**
 * The address's choice of view (`?steps=list`, or none for the canvas) as a search for another run's page: a run
 * started from this one (a rerun) opens with its steps shown as the person was looking at them.
 */
export function stepsViewSearch(params: URLSearchParams): string {
  const steps = params.get("steps");
  return steps === null ? "" : `?${new URLSearchParams({ steps }).toString()}`;
}

interface CanvasProps {
  view: ExecutionView;
  drawn: NonNullable<ReturnType<typeof runGraph>>;
  now: number;
  selected: string | null;
  onSelect(clicked: string | null): void;
  /** The step paths of the points other branches wait at behind the pause. */
  waitingAt: ReadonlySet<string>;
  marks?: Record<string, BreakpointKind[]>;
  onGutterClick?(node: string, kind: BreakpointKind): void;
}

function RunCanvas({ view, drawn, now, selected, onSelect, waitingAt, marks, onGutterClick }: CanvasProps) {
  // Where the workflow's author placed the steps; a deleted workflow's run is laid out afresh.
  const layout = useQuery({
    queryKey: workflowKeys.detail(view.workflowId),
    queryFn: ({ signal }) => fetchWorkflow(view.workflowId, signal),
    retry: false,
    select: (w) => w.layout.positions,
  });
  const overlay = useMemo(
    () =>
      runOverlay(
        drawn,
        {
          steps: view.steps,
          pausedAt: view.pause?.stepPath ?? null,
          waitingAt,
          marks,
          unreached: unreachedStatus(view.status),
        },
        now,
      ),
    [drawn, view.steps, view.pause, waitingAt, view.status, marks, now],
  );
  const follow = useMemo(
    () => followedNode(view.steps, view.pause?.stepPath ?? null, view.status === "RUNNING"),
    [view.steps, view.pause, view.status],
  );
  return (
    <div className="run-canvas">
      {layout.isPending ? (
        <Loading what="Drawing the workflow" />
      ) : (
        <Suspense fallback={<Loading what="Loading the canvas" />}>
          <WorkflowCanvas
            graph={drawn}
            positions={layout.data}
            selected={selected === null ? null : nodeOfPath(selected)}
            onSelect={onSelect}
            overlay={overlay}
            onGutterClick={onGutterClick}
            follow={follow}
          />
        </Suspense>
      )}
    </div>
  );
}
