import { Lru } from "@wf/shared/pools";

/** Endings remembered: about 60 bytes each. A late command comes within seconds of its execution's end. */
const REMEMBERED = 10_000;

/**
 * The endings this process wrote and saw through (the final events acknowledged, the parent told), by execution: the
 * version of the ended record. A run's end, and those written outside a run: a cancel or a fail of an execution nobody
 * holds, an interruption on a takeover, a start that could not run, an ending finished again. A command delivered again for an ended execution finishes its ending again, in case its
 * holder died before the rest of it (ExecutorActor.finishEnding); one for an ending remembered here has nothing to do.
 * Those come on the normal path: a short wait's timer, armed in case the process dies, fires while the run still holds
 * the execution, is put back, and comes again once the run has ended. Each would publish the final events again (the
 * stream drops them) and read the record's list entries. What is known dies with the process: after a crash, or on
 * another replica, the ending is finished again.
 */
export class FinishedEndings {
  private readonly versions = new Lru<string, number>(REMEMBERED);

  /** The ending of `executionId`, written at `version`, is seen through. */
  note(executionId: string, version: number): void {
    this.versions.set(executionId, version);
  }

  /** Whether the ended record of `executionId` read at `version` is one seen through here. Kept: more may ask. */
  has(executionId: string, version: number): boolean {
    return this.versions.get(executionId) === version;
  }
}
