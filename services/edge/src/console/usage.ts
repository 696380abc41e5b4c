import { UsageQuery, UsageView } from "@wf/shared/api";
import { keyUsable, MAX_USABLE_KEYS_PER_USER, PLAN_LIMITS } from "@wf/shared/auth";
import type { ExecutionSnapshot, ExecutionStatus } from "@wf/shared/execution";
import type { z } from "zod";
import { defineRoute, type Route } from "../routes/route";

const DAY_MS = 86_400_000;
/** One report reads at most this many executions (newest first); `truncated` says when the window holds more. */
export const MAX_USAGE_EXECUTIONS = 2_000;
const PAGE = 200;

type Spend = {
  executions: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costUsd: number;
};
const zero = (): Spend => ({ executions: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 });

function add(to: Spend, e: ExecutionSnapshot): void {
  to.executions++;
  to.promptTokens += e.usage.promptTokens;
  to.completionTokens += e.usage.completionTokens;
  to.totalTokens += e.usage.totalTokens;
  to.costUsd += e.usage.costUsd;
}

const utcDate = (at: number): string => new Date(at).toISOString().slice(0, 10);
/** Cents and below add up in floating point: keep the sums to a micro-dollar. */
const rounded = (s: Spend): Spend => ({ ...s, costUsd: Math.round(s.costUsd * 1e6) / 1e6 });

type Ctx = Parameters<Route["handler"]>[1]["ctx"];

/** The executions of `ownerId` created at or after `from`, step tests included, newest first, at most `max`. */
async function executionsSince(
  ctx: Ctx,
  ownerId: string,
  from: number,
  max: number,
): Promise<{ items: ExecutionSnapshot[]; truncated: boolean }> {
  // Step tests are runs too (they are listed apart): their tokens and cost count.
  const [runs, tests] = await Promise.all([
    listSince(ctx, ownerId, false, from, max),
    listSince(ctx, ownerId, true, from, max),
  ]);
  const items = [...runs.items, ...tests.items].sort((a, b) => b.createdAt - a.createdAt);
  return { items: items.slice(0, max), truncated: runs.truncated || tests.truncated || items.length > max };
}

async function listSince(
  ctx: Ctx,
  ownerId: string,
  stepTests: boolean,
  from: number,
  max: number,
): Promise<{ items: ExecutionSnapshot[]; truncated: boolean }> {
  const items: ExecutionSnapshot[] = [];
  for (let page = 1; ; page++) {
    const { items: batch } = await ctx.store.executions.list({ ownerId, stepTests, page, size: PAGE });
    for (const e of batch) {
      if (e.createdAt < from) return { items, truncated: false };
      if (items.length >= max) return { items, truncated: true };
      items.push(e);
    }
    if (batch.length < PAGE) return { items, truncated: false };
  }
}

/** Tokens and cost of the user's executions, and its keys' request counts against the plan. */
export const consoleUsageRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/console/usage",
    operationId: "consoleUsage",
    summary:
      "Your tokens and cost by day and by workflow, executions by status, and each key's requests against your plan's limits",
    description:
      `Sums the \`usage\` of the executions you own created in the window, step tests included (the newest ${MAX_USAGE_EXECUTIONS} at most: \`truncated\` says when there were more). ` +
      `Key counts are the rate limiter's for the current epoch minute and UTC date, for your ${MAX_USABLE_KEYS_PER_USER} newest keys that are neither revoked nor expired.`,
    tag: "account",
    auth: "console",
    query: UsageQuery,
    status: 200,
    responses: { 200: { description: "The report.", schema: UsageView } },
    async handler({ query }, { ctx, consoleUser }) {
      const { userId, plan } = consoleUser();
      const now = ctx.clock();
      const from = (Math.floor(now / DAY_MS) - (query.days - 1)) * DAY_MS;
      const [{ items, truncated }, keys] = await Promise.all([
        executionsSince(ctx, userId, from, MAX_USAGE_EXECUTIONS),
        ctx.store.apiKeys.listByOwner(userId),
      ]);

      const total = zero();
      const stepTests = zero();
      const byDay = new Map<string, Spend>();
      for (let day = from; day <= now; day += DAY_MS) byDay.set(utcDate(day), zero());
      const byWorkflow = new Map<string, Spend & { workflowName: string }>();
      const byStatus: Partial<Record<ExecutionStatus, number>> = {};
      for (const e of items) {
        add(total, e);
        if (e.triggerSource === "step_test") add(stepTests, e);
        const date = utcDate(e.createdAt);
        if (!byDay.has(date)) byDay.set(date, zero());
        add(byDay.get(date)!, e);
        let wf = byWorkflow.get(e.workflowId);
        if (!wf) byWorkflow.set(e.workflowId, (wf = { ...zero(), workflowName: e.workflowName }));
        add(wf, e);
        byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
      }

      const limits = PLAN_LIMITS[plan];
      // At most the cap's worth: two creates at once may have passed it by one.
      const live = keys.filter((k) => keyUsable(k, now)).slice(0, MAX_USABLE_KEYS_PER_USER);
      const counts = await Promise.all(live.map((k) => ctx.counters.peek(k.id, now)));

      const { executions: _n, ...totalUsage } = rounded(total);
      const view: z.input<typeof UsageView> = {
        days: query.days,
        from,
        to: now,
        executionsRead: items.length,
        truncated,
        total: totalUsage,
        stepTests: rounded(stepTests),
        byDay: [...byDay].sort(([a], [b]) => a.localeCompare(b)).map(([date, s]) => ({ date, ...rounded(s) })),
        byWorkflow: [...byWorkflow]
          .map(([workflowId, s]) => ({ workflowId, workflowName: s.workflowName, ...rounded(s) }))
          .sort(
            (a, b) =>
              b.costUsd - a.costUsd || b.totalTokens - a.totalTokens || a.workflowId.localeCompare(b.workflowId),
          ),
        byStatus,
        plan,
        keys: live.map((k, i) => ({
          id: k.id,
          name: k.name,
          minute: { count: counts[i]!.minute, limit: limits.perMinute },
          day: { count: counts[i]!.day, limit: limits.perDay },
        })),
      };
      return view;
    },
  }),
];
