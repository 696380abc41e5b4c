import type { JetStreamClient } from "@nats-io/jetstream";
import type { ArtifactFiles } from "@wf/shared/artifacts";
import {
  childDepth,
  laneOf,
  MAX_CALL_DEPTH,
  newId,
  type DebugRequest,
  type ExecutionSnapshot,
  type ResultLimits,
} from "@wf/shared/execution";
import { startRefusal, starterOf, type Plan } from "@wf/shared/auth";
import { AlreadyExistsError } from "@wf/shared/errors";
import type {
  ApprovalExpireCommand,
  CancelCommand,
  DebugIdleCommand,
  ResumeCommand,
  StartCommand,
} from "@wf/shared/messages";
import type { Logger } from "@wf/shared/log";
import { epochMinute, type OwnerMinuteBudget } from "@wf/shared/rate-limit";
import {
  newIdInLane,
  retryDelayMs,
  retryTransient,
  subjects,
  toToken,
  type LaneChoice,
  type Timers,
  type TimerSpec,
} from "@wf/shared/nats";
import { settleApproval, type Store } from "@wf/shared/store";
import type { CodeRequest, CodeResult, CodeRunner, LogListener } from "../code/index";
import type { EventPublisher } from "../run/committer";
import type { ChildStart, RunEffects } from "../run/effects";
import type { ArtifactBudget } from "./artifact-budget";
import { withinPlanTimeout } from "./code-timeout";
import { aiEffects, type AiDeps } from "./live-ai-effects";
import type { OwnerPlans } from "./owner-plans";

/** Publishes of a child's cancel before it is given up: about half a minute, with retryDelayMs. */
const CANCEL_CHILD_ATTEMPTS = 5;

export interface EffectDeps extends AiDeps {
  log: Logger;
  js: JetStreamClient;
  /** Events and snapshots' companions, sent without a request each. */
  events: EventPublisher;
  artifactFiles: ArtifactFiles;
  store: Store;
  timers: Timers;
  codeRunner: CodeRunner;
  /** Owners' plans: their steps' shares of the sandbox runners. */
  ownerPlans: OwnerPlans;
  /** Each owner's artifact bytes a day (docs/sandbox.md#artifacts). */
  artifactBudget: ArtifactBudget;
  /** Each owner's sub-workflow starts a minute (docs/workflow-format.md#sub-workflows). */
  subworkflowStarts: OwnerMinuteBudget;
  /** The start lanes' backlogs: a child starts in the less busy of its owner's lanes. */
  lanes: LaneChoice;
  ns: string;
  holdMs: number;
  /** Whether the executor is stopping (WF_STOP_GRACE_MS). */
  stopping(): boolean;
  /** What an execution's record and messages may hold, from the NATS server's max_payload. */
  resultLimits: ResultLimits;
}

/** The side effects of one execution's run. */
export function runEffects(
  deps: EffectDeps,
  snap: ExecutionSnapshot,
  secrets?: Readonly<Record<string, string>>,
  wokenFor: string | null = null,
): RunEffects {
  const subj = subjects(deps.ns);
  return {
    ...aiEffects(deps, snap, secrets),
    holdMs: deps.holdMs,
    wokenFor,
    handingBack: deps.stopping,
    // Reads and idempotent writes of a run under way go through transient failures (an election),
    // or the command fails, and its redelivery ends an API run INTERRUPTED though no executor died.
    runCode: (req, signal, onLog) => runOwnersCode(deps, snap, req, signal, onLog),
    async saveArtifacts(stepPath, files) {
      const bytes = files.reduce((sum, f) => sum + f.size, 0);
      const refused = await deps.artifactBudget.refusal(snap.ownerId, bytes);
      if (refused !== null) return { refused };
      return {
        saved: await deps.artifactFiles.save(
          { executionId: snap.id, ownerId: snap.ownerId, stepName: stepPath },
          files,
        ),
      };
    },
    async scheduleWake(stepPath, dueAt) {
      const timerId = `${snap.id}-${toToken(stepPath)}-${newId()}`;
      const payload: ResumeCommand = { executionId: snap.id, reason: "timer", stepPath };
      await deps.timers.schedule({
        kind: "exec",
        id: timerId,
        lane: laneOf(snap.id),
        dueAt,
        fire: { subject: subj.execResume(snap.id), payload, msgId: `wake:${timerId}` },
      });
    },
    scheduleDebugIdle: (pauseId, dueAt) => deps.timers.schedule(debugIdleTimer(deps.ns, snap.id, pauseId, dueAt)),
    newChildId: () => newIdInLane(deps.lanes, snap.ownerId),
    startChild: (workflowId, childId, stepPath, inputs, debug) =>
      startChildExecution(deps, snap, workflowId, childId, stepPath, inputs, debug),
    async loadExecution(id) {
      return (await retryTransient(() => deps.store.executions.get(id)))?.value ?? null;
    },
    cancelChild(id) {
      const cmd: CancelCommand = { executionId: id, reason: `parent ${snap.id} cancelled` };
      void publishRetrying(() => deps.js.publish(subj.execCancel(id), JSON.stringify(cmd))).catch((err: unknown) => {
        deps.log.error("a child execution's cancel could not be published: it runs to its end", {
          err,
          executionId: snap.id,
          child: id,
        });
      });
    },
    async openApproval(record) {
      try {
        // Sent again through a transient failure: a create that landed unseen then finds the
        // record there, and puts its list keys once more, which the first may have missed.
        await retryTransient(() => deps.store.approvals.create(record));
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
      }
      const payload: ApprovalExpireCommand = { approvalId: record.id, executionId: record.executionId };
      await deps.timers.schedule({
        kind: "approval",
        id: record.id,
        lane: laneOf(record.executionId),
        dueAt: record.expiresAt,
        fire: {
          subject: subj.approval("expire", record.id, record.executionId),
          payload,
          msgId: `expire:${record.id}`,
        },
      });
    },
    async loadApproval(id) {
      return (await retryTransient(() => deps.store.approvals.get(id)))?.value ?? null;
    },
    async cancelApproval(id, reason) {
      const settled = await settleApproval(deps.store, id, (a) => ({
        ...a,
        status: "CANCELLED",
        decidedAt: Date.now(),
        comment: reason,
      }));
      return settled.record;
    },
  };
}

/**
 * Runs a code step: one that may connect is narrowed by its owner's list too, read as it starts (a change holds from
 * the next step on); its timeout is held to its owner's plan's bound, its log saying so when cut.
 */
async function runOwnersCode(
  deps: EffectDeps,
  snap: ExecutionSnapshot,
  req: CodeRequest,
  signal: AbortSignal,
  onLog?: LogListener,
): Promise<CodeResult> {
  let ownerAllow: string[] | undefined;
  let ownerPlan: Plan | undefined;
  if (req.network) {
    // One read for both, which also refreshes the cached plan.
    const account = (await retryTransient(() => deps.store.users.get(snap.ownerId)))?.value;
    ownerAllow = account?.egressAllow;
    ownerPlan = account?.plan;
    deps.ownerPlans.seen(snap.ownerId, ownerPlan);
  } else {
    ownerPlan = await deps.ownerPlans.of(snap.ownerId);
  }
  const bounded = withinPlanTimeout(req, ownerPlan);
  if (bounded.note !== undefined) onLog?.(bounded.note);
  const result = await deps.codeRunner.run(
    { ...bounded.req, ...(ownerAllow ? { ownerAllow } : {}), ...(ownerPlan ? { ownerPlan } : {}) },
    signal,
    onLog,
  );
  return bounded.note === undefined ? result : { ...result, logs: [bounded.note, ...result.logs] };
}

/** How far past the next minute's start a throttled sub-workflow start asks again: not all at one instant. */
const THROTTLE_SPREAD_MS = 1_000;

/**
 * Starts a child execution: its parent's owner starts it (it runs as theirs), with the right the API would ask of them,
 * within MAX_CALL_DEPTH calls of an execution started otherwise, and within the owner's sub-workflow starts this minute.
 */
async function startChildExecution(
  deps: EffectDeps,
  snap: ExecutionSnapshot,
  workflowId: string,
  childId: string,
  stepPath: string,
  inputs: Record<string, unknown>,
  debug?: DebugRequest,
): Promise<ChildStart> {
  const subj = subjects(deps.ns);
  const [wf, account] = await Promise.all([
    retryTransient(() => deps.store.workflows.get(workflowId)),
    retryTransient(() => deps.store.users.get(snap.ownerId)),
  ]);
  const owner = account?.value ?? null;
  const refusal = startRefusal(starterOf(snap.ownerId, owner), workflowId, wf?.value ?? null);
  if (refusal) return { kind: "refused", error: refusal.message };
  const depth = childDepth(snap.parent);
  if (depth > MAX_CALL_DEPTH) {
    return {
      kind: "refused",
      error: `sub-workflows nest at most ${MAX_CALL_DEPTH} calls deep, and this execution runs ${depth - 1} deep; a workflow that calls itself needs a condition that ends the calls`,
    };
  }
  const child = wf!.value;
  const cmd: StartCommand = {
    executionId: childId,
    workflow: {
      id: child.id,
      name: child.name,
      ownerId: snap.ownerId,
      version: child.version,
      definition: child.definition,
    },
    inputs,
    triggerSource: snap.triggerSource,
    enableMonitoring: snap.enableMonitoring,
    parent: { executionId: snap.id, stepPath, depth },
    requestedAt: Date.now(),
    // Stepped into from its parent's pause: a debug run that pauses before its first step.
    ...(debug ? { debug } : {}),
  };
  const data = JSON.stringify(cmd);
  const bytes = Buffer.byteLength(data);
  // NATS refuses the publish of a larger one, which would end the parent's run.
  if (bytes > deps.resultLimits.recordBytes) {
    return {
      kind: "refused",
      error: `its start command (the sub-workflow's definition and inputs, ${bytes} bytes) is over the NATS server's max_payload of ${deps.resultLimits.recordBytes} bytes; pass smaller inputs`,
    };
  }
  // An owner with no account (the operators' `wf run --owner`) has no plan to bound it.
  const now = Date.now();
  if (owner && !(await deps.subworkflowStarts.allows(owner, { executionId: snap.id, stepPath, workflowId }, now))) {
    return {
      kind: "throttled",
      until: (epochMinute(now) + 1) * 60_000 + Math.floor(Math.random() * THROTTLE_SPREAD_MS),
    };
  }
  await retryTransient(() => deps.js.publish(subj.execStart(childId), data, { msgID: childId }));
  return { kind: "started" };
}

/**
 * The idle timer of a debug pause. Its id holds the due time: arming the same one again is a
 * no-op, and an edit that moves the due time on arms another (the earlier one then finds the
 * pause not idle yet and does nothing).
 */
export function debugIdleTimer(ns: string, executionId: string, pauseId: string, dueAt: number): TimerSpec {
  const payload: DebugIdleCommand = { executionId, command: "idle", pauseId };
  const id = `${pauseId}-${dueAt}`;
  return {
    kind: "debug",
    id,
    lane: laneOf(executionId),
    dueAt,
    fire: { subject: subjects(ns).execDebug(executionId), payload, msgId: `idle:${id}` },
  };
}

/** Tells a parent execution that its child finished. */
export async function notifyParent(js: JetStreamClient, ns: string, snap: ExecutionSnapshot): Promise<void> {
  if (!snap.parent) return;
  const cmd: ResumeCommand = { executionId: snap.parent.executionId, reason: "child", stepPath: snap.parent.stepPath };
  await retryTransient(() =>
    js.publish(subjects(ns).execResume(snap.parent!.executionId), JSON.stringify(cmd), { msgID: `child:${snap.id}` }),
  );
}

/** Asks another replica to go on with an execution this stopping process parked (ExecutionRun, handingBack). */
export async function handOver(js: JetStreamClient, ns: string, executionId: string): Promise<void> {
  const cmd: ResumeCommand = { executionId, reason: "handover" };
  await retryTransient(() => js.publish(subjects(ns).execResume(executionId), JSON.stringify(cmd)));
}

async function publishRetrying(publish: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await publish();
      return;
    } catch (err) {
      if (attempt >= CANCEL_CHILD_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)).unref());
    }
  }
}
