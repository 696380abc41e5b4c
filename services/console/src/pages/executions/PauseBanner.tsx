import { Link } from "react-router";
import type { PauseRecord } from "../../api/types";
import { pauseSentence } from "./pause-words";
import { executionPath } from "./queries";

/** A debug run waiting at a breakpoint: it stays there until someone answers it in the debugger. */
export function PauseBanner({ executionId, pause }: { executionId: string; pause: PauseRecord }) {
  return (
    <div className="pause-banner" role="status">
      <span>
        <strong>Paused in the debugger.</strong> {pauseSentence(pause)}
      </span>
      <Link className="button primary" to={`${executionPath(executionId)}/debug`}>
        Open the debugger
      </Link>
    </div>
  );
}
