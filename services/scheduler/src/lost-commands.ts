import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import type { ResumeCommand } from "@wf/shared/messages";
import { commandSeq, holderAlive, retryTransient, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { STALE_AFTER_MS } from "./stale-executions";
import { startSweeper, type Sweeper } from "./sweeper";

/** RUNNING executions looked at per pass; each costs a stream read, and a question to its holder when that finds nothing. */
const RUNNING_BATCH = 1_000;

type Holder = NonNullable<ExecutionSnapshot["holder"]>;

/**
 * Hands on, every WF_RETENTION_SWEEP_MS, the executions whose holder died with its command gone (purged by hand,
 * or lost with a server's disk): no delivery of that command will come to let another executor take them over, so
 * they would stay RUNNING for good. One held for two minutes or more, whose command is not stored and whose holder
 * does not say it still runs it, gets a takeover command naming that holder (docs/architecture.md#restarts).
 * Replicas may sweep at once: the takeover's message id is the same from each.
 */
export function startLostCommandSweep(p: Platform, log: Logger, batch = RUNNING_BATCH): Sweeper {
  const ns = p.config.WF_NAMESPACE;
  let after: string | undefined;
  const pass = async (now: number): Promise<number> => {
    const { items, next } = await p.store.executions.listRunningBefore(now - STALE_AFTER_MS, batch, after);
    after = next ?? undefined;
    // A dead process holding many executions is asked once a pass: each unanswered question waits seconds.
    const silent = new Set<string>();
    let handed = 0;
    for (const e of items) {
      const holder = e.holder;
      if (holder === null || holder.since > now - STALE_AFTER_MS) continue;
      if (await commandStored(p.jsm, ns, e.id, holder.seq)) continue;
      if (!silent.has(holder.actor)) {
        if (await holderAlive(p.nc, ns, holder.actor, e.id)) continue;
        silent.add(holder.actor);
      }
      await publishTakeover(p.js, ns, e.id, holder);
      handed++;
    }
    if (handed > 0) log.warn("executions whose holder died with its command gone were handed on", { handed });
    return handed;
  };
  return startSweeper(pass, p.config.WF_RETENTION_SWEEP_MS, log, "lost command sweep");
}

/**
 * Whether the command stored at `seq` is still there, or a rescued copy of it (orphans.ts) on the execution's start
 * or resume subject: the work queue keeps a command until it is acknowledged.
 */
async function commandStored(jsm: JetStreamManager, ns: string, id: string, seq: number): Promise<boolean> {
  const stream = streamNames(ns).cmd;
  if ((await jsm.streams.getMessage(stream, { seq })) !== null) return true;
  const s = subjects(ns);
  for (const subject of [s.execStart(id), s.execResume(id)]) {
    const last = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (last !== null && commandSeq({ seq: last.seq, headers: last.header }) === seq) return true;
  }
  return false;
}

async function publishTakeover(js: JetStreamClient, ns: string, id: string, holder: Holder): Promise<void> {
  const cmd: ResumeCommand = { executionId: id, reason: "takeover", from: { actor: holder.actor, seq: holder.seq } };
  await retryTransient(() =>
    js.publish(subjects(ns).execResume(id), JSON.stringify(cmd), { msgID: `takeover:${id}:${holder.seq}` }),
  );
}
