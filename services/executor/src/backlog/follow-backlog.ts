import type { JetStreamManager } from "@nats-io/jetstream";
import type { Logger } from "@wf/shared/log";
import { edgeTriggerP99, executorConcurrency } from "../ops/concurrency-metrics";
import type { BacklogYield } from "./backlog-yield";
import { YieldCourse } from "./yield-course";

export interface BacklogFollowing {
  stop(): void;
}

/**
 * Samples the command stream every `intervalMs` (one stream info request, however many consumers
 * take from it) for the yield's backlog: what it holds less what this executor has in hand, and
 * its last sequence (what has come in); and says when it yields and when it stops. A failed
 * request leaves the state as it was.
 */
export function followBacklog(opts: {
  jsm: JetStreamManager;
  stream: string;
  /** Messages this executor holds. */
  inHand: () => number;
  /** Messages this executor settled since it started. */
  settled: () => number;
  /** The slowest edge's trigger answers, 99th percentile in ms; null when no edge is heard. */
  edgeP99Ms: () => number | null;
  yieldTo: BacklogYield;
  intervalMs: number;
  log: Logger;
}): BacklogFollowing {
  const { yieldTo, log } = opts;
  executorConcurrency.set(yieldTo.current());
  let kind = yieldTo.state().kind;
  const course = new YieldCourse();
  const unfollow = yieldTo.onChange(() => {
    const state = yieldTo.state();
    executorConcurrency.set(yieldTo.current());
    // A yield's concurrency follows its completions (BacklogYield): logged when it starts and, with its course, ends.
    if (state.kind === kind) {
      if (state.kind === "yielding") course.change(Date.now(), yieldTo.current());
      return;
    }
    kind = state.kind;
    if (state.kind === "yielding") {
      course.start(Date.now(), yieldTo.current());
      log.info("the work queue grows fast: triggers first, executions taken fewer at once until it stops growing", {
        yield: "started",
        concurrency: yieldTo.current(),
        drainPerSec: yieldTo.drainPerSec(),
        edgeP99Ms: opts.edgeP99Ms(),
      });
      return;
    }
    const yielded = course.end(Date.now());
    if (state.kind === "spent")
      log.warn("the work queue has grown for the longest yield in a row: executions taken at full concurrency again", {
        yield: "spent",
        concurrency: yieldTo.current(),
        ...yielded,
      });
    else
      log.info(
        "triggers stopped, the work queue no longer grows, or the edges answer them fast: executions taken at full concurrency",
        { yield: "ended", concurrency: yieldTo.current(), ...yielded },
      );
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const sample = async (): Promise<void> => {
    try {
      const info = await opts.jsm.streams.info(opts.stream);
      const edgeP99Ms = opts.edgeP99Ms();
      edgeTriggerP99.set((edgeP99Ms ?? 0) / 1000);
      yieldTo.sample({
        pending: Math.max(0, info.state.messages - opts.inHand()),
        arrived: info.state.last_seq,
        settled: opts.settled(),
        at: Date.now(),
        edgeP99Ms,
      });
    } catch (err) {
      log.debug("could not sample the work queue's backlog", { err });
    }
  };
  const next = (): void => {
    if (stopped) return;
    timer = setTimeout(() => void sample().finally(next), opts.intervalMs);
    timer.unref();
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      unfollow();
    },
  };
}
