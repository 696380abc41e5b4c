import { Link } from "react-router";
import type { PauseRecord } from "../../api/types";
import { breakpointLabel } from "./breakpoints";
import { executionPath } from "./queries";

/** A debug run waiting at a breakpoint: it stays there until someone answers it in the debugger. */
export function PauseBanner({ executionId, pause }: { executionId: string; pause: PauseRecord }) {
  return (
    <div className="pause-banner" role="status">
      <span>
        <strong>Paused in the debugger</strong> at <code>{pause.stepPath}</code>:{" "}
        {pause.breakpointId === "step" ? "a step command" : `${breakpointLabel(pause.type)} breakpoint ${pause.breakpointId}`} ({pause.phase}).
      </span>
      <Link className="button primary" to={`${executionPath(executionId)}/debug`}>
        Open the debugger
      </Link>
    </div>
  );
}
