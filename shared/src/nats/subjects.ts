import { laneOf, START_LANES } from "../execution/start-lanes";

/**
 * Every subject and stream name the service uses, in one place (docs/architecture.md, Subjects
 * and streams). One object per namespace, made once: hot paths ask for it per message.
 */
export function subjects(ns: string): Subjects {
  let made = byNamespace.get(ns);
  if (made === undefined) {
    made = Object.freeze(subjectsOf(ns));
    byNamespace.set(ns, made);
  }
  return made;
}

const byNamespace = new Map<string, Subjects>();

function subjectsOf(ns: string) {
  return {
    /**
     * A start command, in its execution's lane (start-lanes.ts); outside `execAll`, so that each lane has a consumer of
     * its own.
     */
    execStart: (execId: string) => `${ns}.cmd.start.${laneOf(execId)}.${execId}`,
    execStartLane: (lane: number) => `${ns}.cmd.start.${lane}.*`,
    execStartAll: `${ns}.cmd.start.*.*`,
    /** A resume, in its execution's lane as a start is, outside `execAll` too: one owner's flood waits in its lane. */
    execResume: (execId: string) => `${ns}.cmd.resume.${laneOf(execId)}.${execId}`,
    execResumeLane: (lane: number) => `${ns}.cmd.resume.${lane}.*`,
    execResumeAll: `${ns}.cmd.resume.*.*`,
    /** A resume as versions before the resume lanes sent it: timers armed then still fire on it. */
    execResumeBefore: (execId: string) => `${ns}.cmd.exec.resume.${execId}`,
    execCancel: (execId: string) => `${ns}.cmd.exec.cancel.${execId}`,
    execFail: (execId: string) => `${ns}.cmd.exec.fail.${execId}`,
    /** Debugger commands (claimed on the snapshot first), breakpoint changes and pauses' idle timers. */
    execDebug: (execId: string) => `${ns}.cmd.exec.debug.${execId}`,
    execCancelAll: `${ns}.cmd.exec.cancel.*`,
    /**
     * Cancels, fails and debugger commands, the executors' urgent ones, on a consumer of their own; and the starts and
     * resumes that versions before the lanes stored here (`<ns>.cmd.exec.start|resume.<execId>`), until none is left.
     */
    execAll: `${ns}.cmd.exec.>`,
    /**
     * An approval's command (approve, reject, expire), in the lane of the execution it gates (start-lanes.ts): one
     * owner's flood of expiries waits in its lane, not ahead of another owner's decision.
     */
    approval: (verb: string, approvalId: string, executionId: string) =>
      `${ns}.cmd.approvals.${laneOf(executionId)}.${verb}.${approvalId}`,
    approvalLane: (lane: number) => `${ns}.cmd.approvals.${lane}.*.*`,
    /** An approval's command as versions before the approval lanes sent it: timers armed then still fire on it. */
    approvalBefore: (verb: string, approvalId: string) => `${ns}.cmd.approval.${verb}.${approvalId}`,
    approvalBeforeAll: `${ns}.cmd.approval.>`,
    /**
     * The scheduler's own commands (a schedule's tick and a chained run's start, sent by their timers; an end that a
     * workflow is chained after, handed on from the events), in the lane of the owner of the workflow they start or of
     * the execution that ended (start-lanes.ts): one owner's flood of them waits in its lane, not ahead of another
     * owner's.
     */
    trigger: (lane: number, kind: "tick" | "chain" | "end", token: string) =>
      `${ns}.cmd.triggers.${lane}.${kind}.${token}`,
    triggerLane: (lane: number) => `${ns}.cmd.triggers.${lane}.*.*`,
    /** The scheduler's commands as versions before the trigger lanes sent them: timers armed then still fire on them. */
    triggerBeforeAll: `${ns}.cmd.sched.>`,
    event: (ownerId: string, workflowId: string, execId: string, type: string) =>
      `${ns}.evt.${ownerId}.${workflowId}.${execId}.${type}`,
    /** Filter for tailing: any part left undefined matches everything. */
    eventFilter: (f: { ownerId?: string; workflowId?: string; executionId?: string; type?: string } = {}) =>
      `${ns}.evt.${f.ownerId ?? "*"}.${f.workflowId ?? "*"}.${f.executionId ?? "*"}.${f.type ?? "*"}`,
    /** A durable timer, in its owner's lane (timers.ts): one owner's timers due together wait in their lane. */
    timer: (lane: number, kind: string, id: string) => `${ns}.timer.${lane}.${kind}.${id}`,
    timerLane: (lane: number) => `${ns}.timer.${lane}.*.*`,
    /**
     * Timers as versions before the timer lanes armed them (`<ns>.timer.<kind>.<id>`), still fired until none is left;
     * a token fewer than a lane's, so that the two filters never overlap on the work queue.
     */
    timerBeforeAll: `${ns}.timer.*.*`,
    /** A timer held by the server until due (message schedules, nats-server 2.12+): it then publishes `timer`. */
    timerSchedule: (kind: string, id: string) => `${ns}.timersched.${kind}.${id}`,
    audit: (reason: string) => `${ns}.audit.${reason}`,
    /** Requests to the executors, which alone hold the owners' secrets key (SecretsRequest). */
    secrets: `${ns}.svc.secrets`,
    /** Asks one executor process whether it still runs an execution it holds (the payload: its id). */
    holds: (actorId: string) => `${ns}.svc.holds.${actorId}`,
    holdsAll: `${ns}.svc.holds.*`,
    /** Each edge's trigger latency (EdgeLatency), core NATS: what the executors' yield to triggers judges. */
    edgeLatency: `${ns}.edge.latency`,
    /** Each executor's view of the start lanes' backlogs (LaneBacklogReport), core NATS: where new starts go. */
    laneBacklog: `${ns}.lanes.backlog`,
  };
}
export type Subjects = Readonly<ReturnType<typeof subjectsOf>>;

export function streamNames(ns: string) {
  return {
    cmd: `${ns}_CMD`,
    evt: `${ns}_EVT`,
    timer: `${ns}_TIMER`,
    audit: `${ns}_AUDIT`,
  };
}

export function consumerNames() {
  return {
    executor: "executor",
    /** The executors' consumer of one start lane. */
    executorLane: (lane: number) => `executor-start-${lane}`,
    /** The executors' consumer of one resume lane. */
    executorResumeLane: (lane: number) => `executor-resume-${lane}`,
    /** The approvals' consumer of the commands stored before the approval lanes. */
    approvals: "approvals",
    /** The approvals' consumer of one lane. */
    approvalsLane: (lane: number) => `approvals-${lane}`,
    /** The scheduler's consumer of the timers armed before the timer lanes. */
    timers: "timers",
    /** The scheduler's consumer of one timer lane. */
    timersLane: (lane: number) => `timers-${lane}`,
    /** The scheduler's consumer of its commands stored before the trigger lanes. */
    scheduler: "scheduler",
    /** The scheduler's consumer of one trigger lane. */
    triggersLane: (lane: number) => `triggers-${lane}`,
    /** The scheduler's consumer of one kind of execution end (`exec_completed`, …) on EVT. */
    chainEnds: (eventType: string) => `chains-${eventType}`,
  };
}

/** A work queue: a durable consumer and the subjects it takes. */
export interface WorkQueue {
  durable: string;
  filter: string;
}

/**
 * A queue of the executors' commands: a durable consumer of the command stream, the subjects it takes, and the one
 * command they carry (a lane's), or none: the command is then named by the subject (`<ns>.cmd.exec.<verb>.<execId>`).
 */
export interface ExecutorQueue extends WorkQueue {
  only?: "start" | "resume";
  /** A lane's queue: its lane. */
  lane?: number;
}

/**
 * Every queue the executors serve (docs/architecture.md#start-lanes): the urgent commands' (cancels, fails, debugger
 * commands), then one per start lane and one per resume lane. What serves them, what may consume them (permissions.ts)
 * and what scales the executors on them (deploy/kubernetes) all read this list.
 */
export function executorQueues(ns: string): ExecutorQueue[] {
  const subj = subjects(ns);
  const names = consumerNames();
  return [
    { durable: names.executor, filter: subj.execAll },
    ...lanes().map((lane) => ({
      durable: names.executorLane(lane),
      filter: subj.execStartLane(lane),
      only: "start" as const,
      lane,
    })),
    ...lanes().map((lane) => ({
      durable: names.executorResumeLane(lane),
      filter: subj.execResumeLane(lane),
      only: "resume" as const,
      lane,
    })),
  ];
}

/**
 * The approvals' queues (docs/architecture.md#start-lanes): the commands stored before the lanes, then one per lane.
 * What serves them and what may consume them (permissions.ts) read this list.
 */
export function approvalQueues(ns: string): WorkQueue[] {
  const subj = subjects(ns);
  const names = consumerNames();
  return [
    { durable: names.approvals, filter: subj.approvalBeforeAll },
    ...lanes().map((lane) => ({ durable: names.approvalsLane(lane), filter: subj.approvalLane(lane) })),
  ];
}

/**
 * The scheduler's timer queues on the TIMER stream (docs/architecture.md#start-lanes): the timers armed before the
 * lanes, then one per lane. What serves them and what may consume them (permissions.ts) read this list.
 */
export function timerQueues(ns: string): WorkQueue[] {
  const subj = subjects(ns);
  const names = consumerNames();
  return [
    { durable: names.timers, filter: subj.timerBeforeAll },
    ...lanes().map((lane) => ({ durable: names.timersLane(lane), filter: subj.timerLane(lane) })),
  ];
}

/**
 * The scheduler's queues of its own commands on the command stream (docs/architecture.md#start-lanes): those stored
 * before the trigger lanes, then one per lane. What serves them and what may consume them (permissions.ts) read this
 * list.
 */
export function triggerQueues(ns: string): WorkQueue[] {
  const subj = subjects(ns);
  const names = consumerNames();
  return [
    { durable: names.scheduler, filter: subj.triggerBeforeAll },
    ...lanes().map((lane) => ({ durable: names.triggersLane(lane), filter: subj.triggerLane(lane) })),
  ];
}

const lanes = (): number[] => Array.from({ length: START_LANES }, (_, lane) => lane);

/** Subject tokens cannot hold '.', '*', '>' or whitespace; map anything else to '_'. */
export function toToken(s: string): string {
  const t = s.replace(/[^A-Za-z0-9_-]/g, "_");
  return t.length ? t : "_";
}
