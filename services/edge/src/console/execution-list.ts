import {
  ConsoleExecutionList,
  ConsoleExecutionListQuery,
  ConsoleStepDetail,
  ErrorBody,
  StepParams,
} from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { Store } from "@wf/shared/store";
import { roleOn, visibleExecution } from "../access/roles";
import { cancelExecution } from "../routes/executions";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { artifactView } from "../views/artifact";
import { executionSummary } from "../views/execution";

/** Listing, cancelling and a step's detail in the console (docs/api.md, Console API). */
export const consoleExecutionListRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/console/executions",
    operationId: "consoleListExecutions",
    summary: "Your executions and those of workflows shared with you, newest first, filtered, one page after `cursor`",
    tag: "executions",
    auth: "console",
    query: ConsoleExecutionListQuery,
    status: 200,
    responses: {
      200: { description: "One page of executions (summaries, without steps).", schema: ConsoleExecutionList },
    },
    async handler({ query }, { ctx, consoleUser }) {
      const { items, nextCursor } = await listExecutions(ctx.store, consoleUser().userId, query);
      return { items: items.map(executionSummary), nextCursor };
    },
  }),
  cancelExecution.console,
  defineRoute({
    method: "GET",
    path: "/api/console/executions/{id}/steps/{path}",
    operationId: "consoleGetExecutionStep",
    summary:
      "One step of an execution: input, output, logs, error, attempts, usage, tool calls and artifacts (with signed download URLs)",
    tag: "executions",
    auth: "console",
    params: StepParams,
    status: 200,
    responses: {
      200: { description: "The step.", schema: ConsoleStepDetail },
      404: {
        description: "No such execution or step (the step may not have started yet), or not visible to you.",
        schema: ErrorBody,
      },
    },
    async handler({ params }, { ctx, consoleUser }) {
      const { execution } = await visibleExecution(ctx.store, params.id, consoleUser().userId);
      const s = execution.value;
      const st = Object.hasOwn(s.steps, params.path) ? s.steps[params.path] : undefined;
      if (!st) throw new WfError("NOT_FOUND", `execution ${params.id} has no step ${params.path}`);
      const ids = new Set(st.artifacts ?? []);
      const artifacts =
        ids.size === 0 ? [] : (await ctx.store.artifacts.listByExecution(s.id)).filter((a) => ids.has(a.id));
      const now = ctx.clock();
      return {
        path: params.path,
        name: st.name,
        type: st.type,
        status: st.status,
        input: st.input ?? null,
        output: st.output ?? null,
        logs: st.logs ?? [],
        error: st.error,
        attempts: st.attempts,
        duration: st.duration,
        startedAt: st.startedAt,
        completedAt: st.completedAt,
        usage: st.usage ?? null,
        toolCalls: st.toolCalls ?? [],
        artifacts: artifacts.map((a) => artifactView(a, ctx.signer.downloadUrl(a.id, now))),
        reused: st.reused ?? false,
        edited: st.edited ?? false,
        pinned: st.pinned ?? false,
      };
    },
  }),
];

/** Store pages read per source at a time. */
const BATCH = 50;
/** Records one request reads at most (matching or not) before it answers with what it has and a cursor. */
const SCAN_BUDGET = 1000;

/**
 * One list the store can read: the user's own executions, or those of one workflow shared with
 * them (executions belong to their workflow's owner, so these are listed under that owner).
 */
interface Source {
  key: string;
  ownerId: string;
  workflowId?: string;
}

/**
 * The console's list: the user's executions merged with those of each workflow shared with them,
 * newest first; the cursor is each source's offset (-1 when done). Filters the store cannot take
 * (`triggerSource`, `since`, `until`) are applied here over at most SCAN_BUDGET records a request,
 * which may answer fewer than `limit` items with a cursor to go on.
 */
async function listExecutions(
  store: Store,
  userId: string,
  q: ConsoleExecutionListQuery,
): Promise<{ items: ExecutionSnapshot[]; nextCursor: string | null }> {
  const sources = await sourcesOf(store, userId, q.workflowId);
  const offsets = q.cursor === undefined ? new Map<string, number>() : decodeCursor(q.cursor);
  const heads = new Map<string, { items: ExecutionSnapshot[]; next: number; done: boolean }>();

  const read = async (src: Source, offset: number) => {
    const page = Math.floor(offset / BATCH) + 1;
    const { items, total } = await store.executions.list({
      ownerId: src.ownerId,
      ...(src.workflowId === undefined ? {} : { workflowId: src.workflowId }),
      ...(q.status === undefined ? {} : { status: q.status }),
      // Step tests are listed apart, and only when asked for.
      stepTests: q.triggerSource === "step_test",
      page,
      size: BATCH,
    });
    heads.set(src.key, { items: items.slice(offset % BATCH), next: page * BATCH, done: page * BATCH >= total });
  };
  const live = sources.filter((s) => (offsets.get(s.key) ?? 0) >= 0);
  await Promise.all(live.map((s) => read(s, offsets.get(s.key) ?? 0)));

  const out: ExecutionSnapshot[] = [];
  let scanned = 0;
  for (;;) {
    // Refill the sources whose batch ran out; a source with nothing left is done.
    for (const src of live) {
      const head = heads.get(src.key)!;
      if (head.items.length === 0 && !head.done) await read(src, head.next);
      if (heads.get(src.key)!.items.length === 0 && (offsets.get(src.key) ?? 0) >= 0) offsets.set(src.key, -1);
    }
    if (out.length >= q.limit || scanned >= SCAN_BUDGET) break;
    let best: Source | null = null;
    for (const src of live) {
      const first = heads.get(src.key)!.items[0];
      if (!first) continue;
      const current = best && heads.get(best.key)!.items[0]!;
      if (!current || newer(first, current)) best = src;
    }
    if (!best) break;
    const e = heads.get(best.key)!.items.shift()!;
    offsets.set(best.key, (offsets.get(best.key) ?? 0) + 1);
    scanned++;
    if (q.since !== undefined && e.createdAt < q.since) {
      // Newest first: nothing after it in this source is recent enough.
      offsets.set(best.key, -1);
      heads.set(best.key, { items: [], next: 0, done: true });
      continue;
    }
    if (q.until !== undefined && e.createdAt > q.until) continue;
    if (q.triggerSource !== undefined && e.triggerSource !== q.triggerSource) continue;
    out.push(e);
  }
  const more = live.some((s) => (offsets.get(s.key) ?? 0) >= 0);
  return { items: out, nextCursor: more ? encodeCursor(sources, offsets) : null };
}

function newer(a: ExecutionSnapshot, b: ExecutionSnapshot): boolean {
  return a.createdAt !== b.createdAt ? a.createdAt > b.createdAt : a.id > b.id;
}

async function sourcesOf(store: Store, userId: string, workflowId: string | undefined): Promise<Source[]> {
  if (workflowId !== undefined) {
    const workflow = await store.workflows.get(workflowId);
    // A workflow the user does not see lists nothing (as v1: their own executions of it, none).
    const ownerId = workflow && roleOn(workflow.value, userId) ? workflow.value.ownerId : userId;
    return [{ key: "w", ownerId, workflowId }];
  }
  const sources: Source[] = [{ key: "own", ownerId: userId }];
  for (let page = 1; ; page++) {
    const { items, total } = await store.workflows.listVisible(userId, { page, size: 200 });
    for (const w of items)
      if (w.ownerId !== userId) sources.push({ key: `w:${w.id}`, ownerId: w.ownerId, workflowId: w.id });
    if (page * 200 >= total || items.length === 0) break;
  }
  return sources;
}

function encodeCursor(sources: Source[], offsets: Map<string, number>): string {
  const o: Record<string, number> = {};
  for (const s of sources) o[s.key] = offsets.get(s.key) ?? 0;
  return Buffer.from(JSON.stringify(o)).toString("base64url");
}

function decodeCursor(cursor: string): Map<string, number> {
  const bad = () => validationError([{ in: "query", field: "cursor", message: "is not a cursor this list answered" }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw bad();
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== "number" || !Number.isInteger(v) || v < -1) throw bad();
    out.set(k, v);
  }
  return out;
}
