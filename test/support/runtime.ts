import { loadConfig, type Config } from "@wf/shared/config";
import type { JetStreamManager } from "@nats-io/jetstream";
import {
  endedStatus,
  newId,
  type DebugRequest,
  type ExecutionEvent,
  type ExecutionSnapshot,
} from "@wf/shared/execution";
import { streamNames, subjects, type LaneChoice } from "@wf/shared/nats";
import { startExecution } from "@wf/shared/client";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { startNatsServer, TEST_BUILD_ENV, waitFor, type NatsServerHandle } from "@wf/testing";
import { parseWorkflow } from "@wf/shared/workflow";
import type { TriggerSource } from "@wf/shared/execution";
import { StartCommand } from "@wf/shared/messages";
import { startApprovals } from "@wf/approvals";
import { startExecutor, type ExecutorActor } from "@wf/executor";
import { startScheduler } from "@wf/scheduler";
import { EGRESS_TEST_ALLOWANCE } from "./egress-allowance";
import { ONE_SANDBOX_RUNNER } from "./sandbox-pool";

/** A namespace per test: tests share one nats-server without seeing each other. */
export function uniqueNamespace(): string {
  return `t${newId().slice(-12)}`;
}

/** Steps may reach the tests' SideEffects servers. `server`: a nats-server, or a cluster (its members' URLs). */
export function testConfig(server: Pick<NatsServerHandle, "url">, env: Record<string, string> = {}): Config {
  return loadConfig({
    NATS_URL: server.url,
    WF_NAMESPACE: uniqueNamespace(),
    LOG_LEVEL: "error",
    ...EGRESS_TEST_ALLOWANCE,
    ...ONE_SANDBOX_RUNNER,
    // Most in-process runtimes run no code step: their runner (about a second of CPU) starts when one does.
    WF_SANDBOX_START: "first-use",
    // The test run's bundles of the sandbox runner: loading its sources through tsx costs each runner ~0.5 s of CPU.
    ...(process.env[TEST_BUILD_ENV] ? { WF_SANDBOX_BUNDLE_DIR: process.env[TEST_BUILD_ENV] } : {}),
    ...env,
  });
}

export interface InProcessRuntime {
  platform: Platform;
  ns: string;
  /** The executor's actor, where this runtime runs one. */
  executor: ExecutorActor | null;
  stop(): Promise<void>;
}

/** Executor, approvals and scheduler in this process, on their own platform connection. */
export async function startRuntime(
  config: Config,
  parts: { executor?: boolean; scheduler?: boolean; approvals?: boolean } = {},
): Promise<InProcessRuntime> {
  const platform = await openPlatform(config, "test");
  const executor = parts.executor === false ? null : await startExecutor(platform);
  const scheduler = parts.scheduler === false ? null : await startScheduler(platform);
  const approvals = parts.approvals === false ? null : await startApprovals(platform);
  return {
    platform,
    ns: config.WF_NAMESPACE,
    executor: executor?.actor ?? null,
    async stop() {
      await executor?.stop();
      await approvals?.stop();
      await scheduler?.stop();
      await platform.close();
    },
  };
}

export function definitionOf(yaml: string) {
  const parsed = parseWorkflow(yaml);
  if (!parsed.ok) throw new Error(`bad test workflow: ${JSON.stringify(parsed.errors)}`);
  return parsed.workflow;
}

/**
 * A `pending` start of a one-step workflow whose transform outputs `output`, as the API's path
 * makes it; `publish` sends its command without the definition (as a start that wrote its record
 * first does) and returns the command's stream sequence.
 */
export function pendingStart(p: Platform, name: string, output: number, triggerSource: "open_api" | "webhook") {
  const definition = definitionOf(`
  name: ${name}
  steps:
    - { name: a, type: transform, output: ${output} }
  `);
  const workflow = { id: `wf-${name}`, name, ownerId: "owner1", version: 1, definition };
  const executionId = newId();
  const cmd = StartCommand.parse({
    executionId,
    workflow,
    pending: true,
    inputs: {},
    triggerSource,
    requestedAt: Date.now(),
  });
  const publish = async (): Promise<number> => {
    const body = JSON.stringify({ ...cmd, workflow: { ...workflow, definition: undefined } });
    return (await p.js.publish(subjects(p.config.WF_NAMESPACE).execStart(executionId), body)).seq;
  };
  return { cmd, executionId, publish };
}

/** Starts an execution of an inline workflow, as `wf run` does, its definition in the start command. */
export async function run(
  p: Platform,
  yaml: string,
  opts: {
    inputs?: Record<string, unknown>;
    triggerSource?: TriggerSource;
    ownerId?: string;
    monitoring?: boolean;
    debug?: DebugRequest;
    /** A step test of this top-level step, with no earlier execution as its context. */
    stepTest?: string;
    /** As a saved workflow's version is started (a cron tick's), not an inline run. */
    version?: number;
    /** Which of the owner's lanes the start goes to, as an edge's is; without it, the owner's first. */
    lanes?: LaneChoice;
  } = {},
): Promise<string> {
  const definition = definitionOf(yaml);
  return startExecution(
    p.js,
    p.config.WF_NAMESPACE,
    {
      workflow: {
        id: `wf-${definition.name}`,
        name: definition.name,
        ownerId: opts.ownerId ?? "owner1",
        version: opts.version ?? null,
        definition,
      },
      inputs: opts.inputs ?? {},
      triggerSource: opts.triggerSource ?? "console",
      enableMonitoring: opts.monitoring ?? false,
      ...(opts.debug === undefined ? {} : { debug: opts.debug }),
      ...(opts.stepTest === undefined ? {} : { stepTest: { step: opts.stepTest, contextFrom: null } }),
    },
    opts.lanes === undefined ? {} : { lanes: opts.lanes },
  );
}

const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"]);

export async function waitForStatus(
  p: Platform,
  id: string,
  statuses: string[] = [...TERMINAL],
  timeoutMs = 20_000,
): Promise<ExecutionSnapshot> {
  return waitFor(
    async () => {
      const v = await p.store.executions.get(id);
      return v && statuses.includes(v.value.status) ? v.value : undefined;
    },
    { timeoutMs, what: `execution ${id} to reach ${statuses.join("/")}` },
  );
}

/** Commands executors hold and have not acknowledged yet (a start being run, before any write of it). */
export async function commandsInHand(jsm: JetStreamManager, ns: string): Promise<number> {
  let held = 0;
  for await (const c of jsm.consumers.list(streamNames(ns).cmd)) held += c.num_ack_pending;
  return held;
}

/** The types of one execution's events on the EVT stream, in order. */
export async function eventTypes(jsm: JetStreamManager, ns: string, id: string): Promise<string[]> {
  const stream = streamNames(ns).evt;
  const filter = subjects(ns).eventFilter({ executionId: id });
  const out: string[] = [];
  for (let seq = 1; ;) {
    const m = await jsm.streams.getMessage(stream, { seq, next_by_subj: filter } as never);
    if (!m) return out;
    out.push(m.json<ExecutionEvent>().type);
    seq = m.seq + 1;
  }
}

/**
 * The types of an ended execution's events, once its terminal event is on the stream: events go out after the write
 * they describe, so a reader who saw the ended record may be ahead of them.
 */
export async function endedEventTypes(jsm: JetStreamManager, ns: string, id: string): Promise<string[]> {
  return waitFor(
    async () => {
      const types = await eventTypes(jsm, ns, id);
      return endedStatus(types.at(-1) ?? "") ? types : undefined;
    },
    { what: `execution ${id}'s terminal event` },
  );
}

export { startNatsServer, waitFor };
