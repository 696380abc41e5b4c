import type { ConsumerMessages } from "@nats-io/jetstream";
import { ArtifactFiles } from "@wf/shared/artifacts";
import { newId } from "@wf/shared/execution";
import { consumerNames, ensureConsumer, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { OWNER_SECRETS_KEY, SecretBox } from "@wf/shared/secrets";
import { ExecutorActor } from "./actor/executor-actor";
import { LlmGateway } from "./ai/gateway";
import { stdioLauncher } from "./ai/stdio-sandbox";
import { createCodeRunner } from "./code/index";

export interface RunningService {
  stop(): Promise<void>;
}

/**
 * Execution actors: pulls commands from the shared durable consumer, at most
 * WF_EXEC_CONCURRENCY at a time, sized so a fetched message never waits in a local buffer
 * (where its lease would run out).
 */
export async function startExecutor(p: Platform): Promise<RunningService & { actor: ExecutorActor }> {
  const { config, js, jsm, nc } = p;
  // First: a provider whose key variable is missing stops start-up before anything is opened.
  const llm = LlmGateway.fromConfig(config);
  const ns = config.WF_NAMESPACE;
  const subj = subjects(ns);
  const stream = streamNames(ns).cmd;
  const durable = consumerNames().executor;
  await ensureConsumer(jsm, stream, {
    durable,
    filter: subj.execAll,
    ackWaitMs: config.WF_EXEC_LEASE_MS,
    // Bounded by the actor itself (WF_EXEC_MAX_DELIVER): "busy" redeliveries must not exhaust it.
    maxDeliver: -1,
    maxAckPending: Math.max(1_000, config.WF_EXEC_CONCURRENCY * 16),
  });
  const codeRunner = await createCodeRunner({
    pool: config.WF_SANDBOX_POOL,
    ...(config.WF_SANDBOX_SOCKET ? { socket: config.WF_SANDBOX_SOCKET } : {}),
    ...(config.WF_CODE_TMP_DIR ? { tmpRoot: config.WF_CODE_TMP_DIR } : {}),
  });
  const log = p.log.child({ component: "executor" });
  const isolation = codeRunner.isolation();
  log.info("code sandbox", { ...isolation });
  if (isolation.network === "none" || isolation.filesystem === "none") {
    log.warn(
      "code steps run without full isolation: bubblewrap with user and network namespaces is not available " +
        "(install bubblewrap; in a container allow unshare of user namespaces). See README, Code steps.",
      { ...isolation },
    );
  }
  const mcpStdio = config.WF_MCP_STDIO ? await stdioLauncher() : null;
  if (mcpStdio && !mcpStdio.sandboxed) {
    log.warn(
      "stdio MCP servers run unsandboxed, as plain child processes of the executor: bubblewrap with user and pid " +
        "namespaces is not available (install bubblewrap; in a container allow unshare of user namespaces). See README, LLM and agent steps.",
    );
  }
  const artifactFiles = await ArtifactFiles.open(nc, ns, p.store);
  const secretBox = await SecretBox.open(nc, ns, config.WF_SECRETS_KEY, OWNER_SECRETS_KEY);
  const actor = new ExecutorActor({
    js,
    artifactFiles,
    store: p.store,
    timers: p.timers,
    codeRunner,
    llm,
    secretBox,
    mcpStdio,
    ns,
    actorId: `executor-${newId()}`,
    holdMs: config.WF_HOLD_WAIT_MS,
    leaseMs: config.WF_EXEC_LEASE_MS,
    maxDeliver: config.WF_EXEC_MAX_DELIVER,
    redeliverOnce: config.WF_REDELIVER_ONCE,
    log,
  });
  const cancelSub = nc.subscribe(subj.execCancelAll, {
    callback: (_err, msg) => {
      const id = msg.subject.split(".").pop();
      if (id) actor.cancelLocal(id);
    },
  });

  const consumer = await js.consumers.get(stream, durable);
  log.info("executor ready", { concurrency: config.WF_EXEC_CONCURRENCY });
  let stopped = false;
  let free = config.WF_EXEC_CONCURRENCY;
  let wakeLoop: (() => void) | null = null;
  let batch: ConsumerMessages | null = null;
  const inflight = new Set<Promise<void>>();

  const loop = (async () => {
    while (!stopped) {
      if (free === 0) {
        await new Promise<void>((r) => (wakeLoop = r));
        continue;
      }
      try {
        batch = await consumer.fetch({ max_messages: free, expires: 5_000 });
        for await (const m of batch) {
          free--;
          const job = actor.handle(m).finally(() => {
            free++;
            inflight.delete(job);
            wakeLoop?.();
            wakeLoop = null;
          });
          inflight.add(job);
        }
      } catch (err) {
        if (stopped) break;
        log.warn("fetch failed; retrying", { err });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  return {
    actor,
    async stop() {
      stopped = true;
      batch?.stop();
      wakeLoop?.();
      await loop;
      cancelSub.unsubscribe();
      // Runs still going keep their messages unacknowledged: another replica takes them over.
      await Promise.race([Promise.allSettled(inflight), new Promise((r) => setTimeout(r, 10_000))]);
      await codeRunner.close();
    },
  };
}
