import { Link } from "react-router";
import type { PauseRecord } from "../../api/types";
import { pauseSentence } from "./pause-words";
import { executionPath } from "./queries";

/**
 * A debug run waiting at a breakpoint: it stays there until someone answers it in the debugger. `waiting`: how many
 * points of other branches wait their turn behind it.
 */
export function PauseBanner({
  executionId,
  pause,
  waiting,
}: {
  executionId: string;
  pause: PauseRecord;
  waiting: number;
}) {
  return (
    <div className="pause-banner" role="status">
      <span>
        <strong>Paused in the debugger.</strong> {pauseSentence(pause)}
        {waiting > 0
          ? ` ${waiting === 1 ? "Another branch waits its turn" : `${waiting} more branches wait their turn`} behind it.`
          : null}
      </span>
      <Link className="button primary" to={`${executionPath(executionId)}/debug`}>
        Open the debugger
      </Link>
    </div>
  );
}
