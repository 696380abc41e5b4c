import { ArtifactFiles } from "@wf/shared/artifacts";
import { DEFAULT_MAX_PAYLOAD, newId, resultLimits, START_LANES } from "@wf/shared/execution";
import {
  answerHolds,
  consumeCommands,
  ensureConsumer,
  executorQueues,
  followLaneBacklog,
  holderAlive,
  LaneBacklog,
  LaneShares,
  reportLaneBacklog,
  StoredDefinitions,
  streamNames,
  subjects,
  type ConcurrencyBound,
  type ExecutorQueue,
} from "@wf/shared/nats";
import { CancelCommand } from "@wf/shared/messages";
import type { Logger } from "@wf/shared/log";
import { platformHealth } from "@wf/shared/ops";
import { OwnerMinuteBudget, WindowCounters } from "@wf/shared/rate-limit";
import type { Platform } from "@wf/shared/runtime";
import { openOwnerSecretsBox } from "@wf/shared/secrets";
import { JetStreamPublisher } from "@wf/shared/store";
import { executionOfSubject, ExecutorActor } from "./actor/executor-actor";
import { LlmGateway } from "./ai/gateway";
import { McpPlaces } from "./ai/mcp-places";
import { ModelCalls } from "./ai/model-calls";
import { SandboxedStdio } from "./ai/sandboxed-stdio";
import { BacklogYield } from "./backlog/backlog-yield";
import { EdgeLatencies, followEdgeLatencies } from "./backlog/edge-latencies";
import { followBacklog, type BacklogFollowing } from "./backlog/follow-backlog";
import { describeIsolation } from "./code/describe-isolation";
import { ArtifactBudget } from "./actor/artifact-budget";
import { OwnerPlans } from "./actor/owner-plans";
import { createCodeRunner, type CodeRunner, type Isolation } from "./code/index";
import { sandboxSettings } from "./code/sandbox-settings";
import { operatorPolicy } from "./egress";
import { serveSecrets } from "./secrets-service";

/**
 * How often the executor samples its work queue's backlog for the yield to triggers (WF_EXEC_YIELD_GROWTH): more often
 * than the yield steers (CONTROL_MS), so that a yield ends within a sample of the triggers stopping.
 */
const BACKLOG_SAMPLE_MS = 100;

export interface RunningService {
  stop(): Promise<void>;
}

/** How often the executor puts again, where due, the stored definitions of the executions it runs. */
const KEEP_DEFINITIONS_MS = 3_600_000;

/**
 * Execution actors: pull commands from the shared durable consumers (the start lanes', the resume lanes' and the
 * urgent commands'), at most WF_EXEC_CONCURRENCY in hand at a time, lanes in turn (LaneShares).
 */
export async function startExecutor(p: Platform): Promise<RunningService & { actor: ExecutorActor }> {
  const { config, js, nc } = p;
  // First: a provider whose key variable is missing stops start-up before anything is opened.
  const llm = LlmGateway.fromConfig(config);
  // Then the secrets' key: a process given another key than its peers stops here too.
  const secretBox = await openOwnerSecretsBox(p);
  const ns = config.WF_NAMESPACE;
  const subj = subjects(ns);
  const stream = streamNames(ns).cmd;
  const queues = executorQueues(ns);
  await ensureQueues(p, stream, queues);
  const log = p.log.child({ component: "executor" });
  const codeRunner = await startCodeRunner(p, log);
  // Stdio MCP servers run where code steps do, and only the commands the operator lists.
  const mcpStdio = config.WF_MCP_STDIO ? new SandboxedStdio(codeRunner, config.WF_MCP_STDIO_ALLOW ?? []) : null;
  const limits = resultLimits(nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD);
  const artifactFiles = await ArtifactFiles.open(nc, ns, p.placement, p.store);
  // Events on a connection of their own: the server reads a connection's messages one at a time, so the records'
  // writes and the events' publishes then go through it side by side (docs/architecture.md#storage).
  const events = new JetStreamPublisher(await p.connectAgain("events"));
  const definitions = await StoredDefinitions.open(nc, ns, p.placement, log, config.WF_EXECUTION_RETENTION);
  const counters = await WindowCounters.open(nc, ns, p.placement, events);
  const ownerPlans = new OwnerPlans(p.store.users);
  const subworkflowStarts = new OwnerMinuteBudget(
    counters,
    "subworkflow",
    "sub-workflow starts wait: the owner's sub-workflow starts reached their plan's limit this minute",
    log,
  );
  const actorId = `executor-${newId()}`;
  const lanes = new LaneBacklog();
  const unfollowLanes = followLaneBacklog(nc, ns, lanes);
  let stopping = false;
  const actor = new ExecutorActor({
    stopping: () => stopping,
    js,
    events,
    artifactFiles,
    store: p.store,
    timers: p.timers,
    codeRunner,
    ownerPlans,
    artifactBudget: new ArtifactBudget(counters, ownerPlans),
    subworkflowStarts,
    lanes,
    llm,
    modelCalls: new ModelCalls(config.WF_AI_CALLS, ownerPlans),
    secretBox,
    mcpStdio,
    mcpPlaces: new McpPlaces(config.WF_MCP_CONNECTIONS, ownerPlans),
    egress: operatorPolicy(config),
    ns,
    actorId,
    holderAlive: (holder, executionId) => holderAlive(nc, ns, holder, executionId),
    leaseMs: config.WF_EXEC_LEASE_MS,
    definitions,
    holdMs: config.WF_HOLD_WAIT_MS,
    resultLimits: limits,
    log,
  });
  const secretsSub = serveSecrets(nc, ns, p.store, secretBox, log);
  const holdsSub = answerHolds(nc, ns, actorId, (executionId) => actor.holds(executionId));
  const cancelSub = nc.subscribe(subj.execCancelAll, {
    callback: (_err, msg) => {
      const id = msg.subject.split(".").pop();
      if (id) actor.cancelLocal(id, cancelReason(msg.data));
    },
  });
  const keeper = setInterval(() => {
    actor
      .keepDefinitions(Date.now())
      .catch((err: unknown) => log.warn("could not keep the running executions' definitions stored", { err }));
  }, KEEP_DEFINITIONS_MS);
  keeper.unref();
  const { consumers, backlog, yieldTo } = await consumeQueues(p, log, actor, stream, queues);
  for (const { durable } of queues) platformHealth(p).watchConsumer(stream, durable);
  log.info("executor ready", {
    actorId,
    concurrency: config.WF_EXEC_CONCURRENCY,
    yieldConcurrency: yieldTo.yields() ? config.WF_EXEC_YIELD_CONCURRENCY : null,
    maxPayload: limits.recordBytes,
    stepOutputBytes: limits.outputBytes,
  });

  return {
    actor,
    async stop() {
      // Each run parks at its next step or wait and is handed over; one still in a step after the
      // grace period keeps its message unacknowledged, for another replica to take after the lease.
      stopping = true;
      clearInterval(keeper);
      backlog.stop();
      await Promise.all(consumers.map((c) => c.stop(config.WF_STOP_GRACE_MS)));
      cancelSub.unsubscribe();
      holdsSub.unsubscribe();
      secretsSub.unsubscribe();
      unfollowLanes();
      await codeRunner.close();
      await counters.close();
      events.close();
    },
  };
}

/** Creates or updates the queues' durable consumers, shared by every executor. */
async function ensureQueues(
  { config, jsm }: Platform,
  stream: string,
  queues: readonly ExecutorQueue[],
): Promise<void> {
  await Promise.all(
    queues.map((q) =>
      ensureConsumer(jsm, stream, {
        ...q,
        ackWaitMs: config.WF_EXEC_LEASE_MS,
        // Failed attempts are bounded by consumeCommands (WF_EXEC_MAX_DELIVER): "busy" redeliveries must not exhaust
        // it.
        maxDeliver: -1,
        maxAckPending: Math.max(1_000, config.WF_EXEC_CONCURRENCY * 16),
      }),
    ),
  );
}

/**
 * The code steps' runner, its isolation logged once it starts (at start, or at the first code step with
 * WF_SANDBOX_START=first-use): loudly when the sandbox cannot start.
 */
async function startCodeRunner({ config }: Platform, log: Logger): Promise<CodeRunner> {
  const codeRunner = await createCodeRunner({
    pool: config.WF_SANDBOX_POOL,
    ...(config.WF_SANDBOX_SOCKET ? { socket: config.WF_SANDBOX_SOCKET } : {}),
    ...(config.WF_CODE_TMP_DIR ? { tmpRoot: config.WF_CODE_TMP_DIR } : {}),
    ...(config.WF_SANDBOX_BUNDLE_DIR ? { bundleDir: config.WF_SANDBOX_BUNDLE_DIR } : {}),
    sandbox: sandboxSettings(config),
    start: config.WF_SANDBOX_START,
    onStarted: (isolation) => logIsolation(isolation, log),
  });
  if (config.WF_SANDBOX_START === "first-use") log.info("code sandbox: starts at the first code step");
  return codeRunner;
}

function logIsolation(isolation: Isolation, log: Logger): void {
  log.info(`code sandbox: ${describeIsolation(isolation)}`, { ...isolation });
  if (isolation.processes === "refused") {
    log.warn(
      `the code sandbox cannot start on this machine (${isolation.reason ?? "unknown"}): code steps in Python, Bash, Ruby, Lua and CLI commands fail, saying so. ` +
        "It needs to be root with user namespaces; in a container, allow them (docs/sandbox.md). WF_SANDBOX_UNSAFE=1 runs such steps without it.",
      { ...isolation },
    );
  }
  if (isolation.processes === "unsafe") {
    log.error(
      "CODE STEPS RUN WITHOUT THE SANDBOX (WF_SANDBOX_UNSAFE=1): any workflow author can read what this host's files and network give the step's uid. " +
        `The sandbox cannot start here: ${isolation.reason ?? "unknown"}. Never do this where workflows come from people you do not trust.`,
      { ...isolation },
    );
  }
}

/**
 * Pulls the queues' commands into the actor, lanes in turn, yielding to the triggers when the backlog grows
 * (BacklogYield).
 */
async function consumeQueues(
  p: Platform,
  log: Logger,
  actor: ExecutorActor,
  stream: string,
  queues: readonly ExecutorQueue[],
) {
  const { config, js, jsm } = p;
  const commands = actor.commands();
  const yieldTo = new BacklogYield({
    full: config.WF_EXEC_CONCURRENCY,
    yielded: config.WF_EXEC_YIELD_CONCURRENCY,
    growthPerSec: config.WF_EXEC_YIELD_GROWTH,
    maxMs: config.WF_EXEC_YIELD_MAX_MS,
    drainShare: config.WF_EXEC_YIELD_DRAIN_SHARE,
    edgeP99Ms: config.WF_EXEC_YIELD_EDGE_P99_MS,
  });
  const shares = new LaneShares(yieldTo, config.WF_EXEC_CONCURRENCY);
  const startsWaiting = new Array<number>(START_LANES).fill(0);
  const consumers = await Promise.all(
    queues.map(({ durable, only, lane }) =>
      consumeCommands({
        js,
        jsm,
        ns: config.WF_NAMESPACE,
        stream,
        durable,
        log,
        // `<ns>.cmd.exec.<verb>.<execId>`; a lane's are `<ns>.cmd.<start|resume>.<lane>.<execId>`.
        commandOf: only ? () => only : (subject) => subject.split(".")[3],
        commands: only ? { [only]: commands[only] } : commands,
        executionOf: executionOfSubject,
        giveUp: (executionId, reason) => actor.fail(executionId, reason),
        concurrency:
          only === "start" && lane !== undefined ? reporting(shares.lane(), startsWaiting, lane) : shares.lane(),
        ackWaitMs: config.WF_EXEC_LEASE_MS,
        maxDeliver: config.WF_EXEC_MAX_DELIVER,
        redeliverOnce: config.WF_REDELIVER_ONCE,
      }),
    ),
  );
  const edges = new EdgeLatencies();
  // Only an executor that yields and judges the edges listens to them.
  const unfollowEdges =
    yieldTo.yields() && config.WF_EXEC_YIELD_EDGE_P99_MS > 0
      ? followEdgeLatencies(p.nc, config.WF_NAMESPACE, edges)
      : () => undefined;
  const following = followBacklog({
    jsm,
    stream,
    inHand: () => shares.inHand(),
    settled: () => shares.settled(),
    edgeP99Ms: () => edges.slowest(),
    yieldTo,
    intervalMs: BACKLOG_SAMPLE_MS,
    log,
  });
  const unreport = reportLaneBacklog(p.nc, config.WF_NAMESPACE, () => startsWaiting);
  const backlog: BacklogFollowing = {
    stop() {
      following.stop();
      unfollowEdges();
      unreport();
    },
  };
  return { consumers, backlog, yieldTo };
}

/** `bound`, keeping what its lane's consumer says is waiting in `waiting[lane]`, for reportLaneBacklog. */
function reporting(bound: ConcurrencyBound, waiting: number[], lane: number): ConcurrencyBound {
  return {
    ...bound,
    observe(inHand, pending) {
      if (pending !== undefined) waiting[lane] = pending;
      bound.observe?.(inHand, pending);
    },
  };
}

/** The reason a cancel command gives (an abort in the debugger names who aborted), if its body says one. */
function cancelReason(data: Uint8Array): string | undefined {
  try {
    const cmd = CancelCommand.safeParse(JSON.parse(new TextDecoder().decode(data)));
    return cmd.success ? cmd.data.reason : undefined;
  } catch {
    return undefined;
  }
}
