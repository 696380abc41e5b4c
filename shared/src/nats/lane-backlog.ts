import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { randomUUID } from "node:crypto";
import { newId } from "../execution/ids";
import { inLane, ownerLanes, START_LANES } from "../execution/start-lanes";
import { LaneBacklogReport } from "../messages/lane-backlog";
import { LatestReports } from "./latest-reports";
import { isNotFound } from "./streams";
import { consumerNames, streamNames, subjects } from "./subjects";

/** How often an executor with a backlog in some start lane reports them. */
export const LANE_BACKLOG_REPORT_MS = 500;
/** A report counts this long: an executor whose lanes are all empty says so once, then nothing. */
const HEARD_MS = 3 * LANE_BACKLOG_REPORT_MS;
/** Reporters remembered at once; reports from more (a fleet past any real one) are not kept. */
const MAX_REPORTERS = 256;
/**
 * A start leaves its owner's first lane only for a second lane this many starts less busy: a few waiting is no wait
 * (the executors serve the lanes in turn), and an owner's starts stay in one lane while nobody floods.
 */
export const LANE_MARGIN = 8;

/** Where starts go: in their owner's less busy lane, as this process knows it. */
export interface LaneChoice {
  choose(ownerId: string): number;
  /** A start was published to `lane`: it counts there until the executors' reports include it. */
  sent(lane: number): void;
}

/** A new execution's id for a start of `ownerId`'s, in the lane `lanes` chooses, where it then counts as sent. */
export function newIdInLane(lanes: LaneChoice, ownerId: string): string {
  const lane = lanes.choose(ownerId);
  lanes.sent(lane);
  return inLane(newId(), lane);
}

/**
 * The start lanes' backlogs, as the executors report them on `<ns>.lanes.backlog` plus the starts this process sent
 * in the last second (which the next reports will hold): a start goes to its owner's second lane when the first is
 * LANE_MARGIN busier. Owners hashed to the same first lane (one in 16 for any two) then part where one of them floods
 * it: the other's starts take its second lane, which is another's first lane with probability 1 in 15 only, and both
 * of its lanes flooded by the same owner in 1 of 120 (docs/architecture.md#start-lanes). A report that does not
 * parse is dropped.
 */
export class LaneBacklog implements LaneChoice {
  readonly #reports: LatestReports<LaneBacklogReport>;
  /** Starts sent here by lane, in the half second since `#since` and in the one before. */
  #current = noStarts();
  #previous = noStarts();
  #since = 0;

  constructor(private readonly now: () => number = Date.now) {
    this.#reports = new LatestReports(LaneBacklogReport, (r) => r.executor, HEARD_MS, MAX_REPORTERS, now);
  }

  heard(data: Uint8Array | string): void {
    this.#reports.heard(data);
  }

  choose(ownerId: string): number {
    const lanes = ownerLanes(ownerId);
    // Both lanes judged on one read of the reports: one read per lane could see a report count for one and not the other.
    return lessBusy(lanes, this.#busy(lanes));
  }

  sent(lane: number): void {
    this.#turn(this.now());
    this.#current[lane]! += 1;
  }

  /** Starts known to wait in `lane`: the most any executor heard within HEARD_MS reported, and this process's. */
  busy(lane: number): number {
    return this.#busy([lane])[0]!;
  }

  /** `busy` of each of `lanes`, read at one time. */
  #busy(lanes: readonly number[]): number[] {
    const at = this.now();
    this.#turn(at);
    const reported = lanes.map(() => 0);
    for (const report of this.#reports.current(at))
      lanes.forEach((lane, i) => (reported[i] = Math.max(reported[i]!, report.pending[lane] ?? 0)));
    return lanes.map((lane, i) => reported[i]! + this.#current[lane]! + this.#previous[lane]!);
  }

  #turn(at: number): void {
    if (at - this.#since < LANE_BACKLOG_REPORT_MS) return;
    this.#previous = at - this.#since < 2 * LANE_BACKLOG_REPORT_MS ? this.#current : noStarts();
    this.#current = noStarts();
    this.#since = at;
  }
}

/** Of an owner's two lanes (ownerLanes) and the starts waiting in each, the one its next start goes to. */
function lessBusy(lanes: readonly [number, number], waiting: readonly number[]): number {
  return waiting[0]! > waiting[1]! + LANE_MARGIN ? lanes[1] : lanes[0];
}

/**
 * The lane of `ownerId`'s next start for a process that follows no reports (the `wf` CLI, which starts one execution
 * and ends): it asks the server what each of the owner's two start lanes' consumers holds undelivered, what the
 * executors' reports say of them, and chooses as LaneBacklog does. One round trip, where waiting for a report would
 * take up to its interval, and none comes while no lane has a backlog. A consumer not made yet (no executor of this
 * version has run) holds nothing.
 */
export async function askedLane(jsm: JetStreamManager, ns: string, ownerId: string): Promise<number> {
  const lanes = ownerLanes(ownerId);
  const waiting = await Promise.all(
    lanes.map(async (lane) => {
      try {
        return (await jsm.consumers.info(streamNames(ns).cmd, consumerNames().executorLane(lane))).num_pending;
      } catch (err) {
        if (isNotFound(err)) return 0;
        throw err;
      }
    }),
  );
  return lessBusy(lanes, waiting);
}

function noStarts(): number[] {
  return new Array<number>(START_LANES).fill(0);
}

/** Follows the executors' reports until the returned function is called. */
export function followLaneBacklog(nc: NatsConnection, ns: string, backlog: LaneBacklog): () => void {
  const sub = nc.subscribe(subjects(ns).laneBacklog, {
    callback: (err, msg) => {
      if (!err) backlog.heard(msg.data);
    },
  });
  return () => sub.unsubscribe();
}

/**
 * Reports `pending()` (starts waiting by lane) every LANE_BACKLOG_REPORT_MS while some lane has any, and once when
 * none has, until the returned function is called.
 */
export function reportLaneBacklog(nc: NatsConnection, ns: string, pending: () => readonly number[]): () => void {
  const subject = subjects(ns).laneBacklog;
  const executor = randomUUID();
  let reported = false;
  const timer = setInterval(() => {
    const now = pending();
    const any = now.some((n) => n > 0);
    if (!any && !reported) return;
    reported = any;
    const report: LaneBacklogReport = { executor, pending: [...now] };
    nc.publish(subject, JSON.stringify(report));
  }, LANE_BACKLOG_REPORT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
