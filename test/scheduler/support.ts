import { startExecution } from "@wf/shared/client";
import { newId, TERMINAL_STATUSES, type ExecutionSnapshot } from "@wf/shared/execution";
import { consumerNames, isNotFound, streamNames } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { newWorkflowRecord, type UserRecord, type WorkflowRecord } from "@wf/shared/store";
import type { Plan } from "@wf/shared/auth";
import { definitionOf } from "../support/runtime";
import { testUser } from "@wf/testing";

const END_TYPES = ["exec_completed", "exec_failed", "exec_cancelled", "exec_interrupted"];

export async function createOwner(p: Platform, plan: Plan): Promise<UserRecord> {
  const user = testUser({ plan });
  await p.store.users.create(user);
  return user;
}

/** Stores a workflow (as `wf workflow import` does); `id` lets two workflows name each other. */
export async function storeWorkflow(
  p: Platform,
  ownerId: string,
  yaml: string,
  id: string = newId(),
): Promise<WorkflowRecord> {
  const record = newWorkflowRecord({ ownerId, yaml, definition: definitionOf(yaml), id });
  await p.store.workflows.create(record);
  return record;
}

/** Starts a stored workflow as the API does. */
export function startStored(p: Platform, w: WorkflowRecord): Promise<string> {
  return startExecution(
    p.js,
    p.config.WF_NAMESPACE,
    {
      workflow: { id: w.id, name: w.name, ownerId: w.ownerId, version: w.version, definition: w.definition },
      triggerSource: "open_api",
    },
    { store: p.store },
  );
}

/** A workflow's executions, oldest first. */
export async function executionsOf(p: Platform, w: WorkflowRecord): Promise<ExecutionSnapshot[]> {
  const { items } = await p.store.executions.list({ ownerId: w.ownerId, workflowId: w.id, page: 1, size: 200 });
  return items.reverse();
}

/**
 * Whether the namespace has come to rest: every execution of `owners` ended and its end event
 * was handled by the scheduler, no timer or command waits, and nothing was published on any of
 * the streams while this was being checked (so nothing moved between the reads).
 */
export async function settled(p: Platform, owners: readonly UserRecord[]): Promise<boolean> {
  const before = await lastSequences(p);
  const idle = await idleNow(p, owners);
  return idle && before === (await lastSequences(p));
}

async function lastSequences(p: Platform): Promise<string> {
  const names = streamNames(p.config.WF_NAMESPACE);
  const infos = await Promise.all([names.cmd, names.evt, names.timer].map((s) => p.jsm.streams.info(s)));
  return infos.map((i) => i.state.last_seq).join(",");
}

async function idleNow(p: Platform, owners: readonly UserRecord[]): Promise<boolean> {
  const ns = p.config.WF_NAMESPACE;
  const names = streamNames(ns);
  const [cmd, timer, evt] = await Promise.all([
    p.jsm.streams.info(names.cmd),
    p.jsm.streams.info(names.timer),
    p.jsm.streams.info(names.evt, { subjects_filter: `${ns}.evt.>` }),
  ]);
  if (cmd.state.messages > 0 || timer.state.messages > 0) return false;
  for (const type of END_TYPES) {
    const c = await p.jsm.consumers.info(names.evt, consumerNames().chainEnds(type)).catch((err: unknown) => {
      if (isNotFound(err)) return null;
      throw err;
    });
    // None yet: at rest only while no workflow has a chained trigger (else the scheduler has yet to look).
    if (c === null ? (await p.store.workflows.chainedSince()) !== null : c.num_pending > 0 || c.num_ack_pending > 0)
      return false;
  }
  // Step tests are listed apart; their ends are on the stream as the others'.
  const lists = owners.flatMap((o) =>
    [false, true].map((stepTests) => p.store.executions.list({ ownerId: o.id, stepTests, page: 1, size: 200 })),
  );
  const executions = (await Promise.all(lists)).flatMap((page) => page.items);
  if (executions.some((e) => !TERMINAL_STATUSES.has(e.status))) return false;
  const ends = Object.keys(evt.state.subjects ?? {}).filter((s) => END_TYPES.includes(s.slice(s.lastIndexOf(".") + 1)));
  return ends.length === executions.length;
}
