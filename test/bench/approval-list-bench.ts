import { jetstreamManager } from "@nats-io/jetstream";
import { newId } from "@wf/shared/execution";
import { connectNats } from "@wf/shared/nats";
import { ApprovalRecord, keyToken, openStore, type ApprovalStatus, type Store } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { firstListCost, PAGE_SIZE, pagesTimed, timed } from "./list-bench";

export interface ApprovalListBenchSizes {
  /** Approvals of the one owner at which lists are measured, cumulative, ascending. */
  levels: number[];
  /** Timed lists per query shape and level. */
  samples: number;
}

export const APPROVAL_LIST_BENCH_SIZES: ApprovalListBenchSizes = { levels: [10_000, 100_000], samples: 200 };
export const APPROVAL_LIST_BENCH_QUICK_SIZES: ApprovalListBenchSizes = { levels: [2_000], samples: 20 };

interface Timing {
  p50Ms: number;
  p99Ms: number;
}

export interface ApprovalListLevel {
  approvals: number;
  /** The first list of a store opened afresh: it builds the view from the whole index. */
  viewBuildMs: number;
  heapBytesPerApproval: number;
  /** Each status filter (and none) at its first, middle and last page. */
  queries: (Timing & { query: string })[];
  /**
   * Same run: what a list cost before the view, the server's side of it alone (the key scan's
   * STREAM.INFO with the filter of an owner's approvals; the sort and the page's reads came on top).
   */
  keyScan: Timing;
}

/** One in 50 waits for a decision, as in an inbox that is worked through. */
const statusOf = (i: number): ApprovalStatus => (i % 50 === 0 ? "PENDING" : i % 7 === 0 ? "REJECTED" : "APPROVED");

function approval(ownerId: string, i: number, t0: number): ApprovalRecord {
  return ApprovalRecord.parse({
    id: newId(),
    executionId: newId(),
    workflowId: `wf-${i % 10}`,
    ownerId,
    stepName: "review",
    status: statusOf(i),
    approvalMessage: "Ship this order?",
    timeout: 3600,
    createdAt: t0 + i,
    expiresAt: t0 + i + 3_600_000,
    reviewableGroups: [],
    decidedAt: statusOf(i) === "PENDING" ? null : t0 + i + 1_000,
    decidedBy: statusOf(i) === "PENDING" ? null : "reviewer",
  });
}

/**
 * An owner's approval lists (`GET /api/v1/approvals`) at 10,000 and 100,000 approvals, through
 * the store as the edge calls it, from a store opened afresh per level (its view built from the
 * bucket), beside the key scan lists made before the view. Seeded through the store's creates.
 */
export async function runApprovalListBench(
  server: NatsServerHandle,
  sizes: ApprovalListBenchSizes,
  progress: (line: string) => void,
): Promise<ApprovalListLevel[]> {
  const namespace = `approvalbench${Date.now().toString(36)}`;
  const ownerId = `owner-${newId()}`;
  const t0 = Date.UTC(2026, 0, 1);
  const writerNc = await connectNats(server.url, "approval-bench-writer");
  const writer = await openStore({ kind: "kv", nc: writerNc, namespace });
  const levels: ApprovalListLevel[] = [];
  try {
    let seeded = 0;
    for (const level of sizes.levels) {
      progress(`approval lists: seeding to ${level.toLocaleString("en")} approvals of one owner`);
      for (; seeded < level; seeded += 500)
        await Promise.all(
          Array.from({ length: Math.min(500, level - seeded) }, (_, k) =>
            writer.approvals.create(approval(ownerId, seeded + k, t0)),
          ),
        );
      levels.push(await measureLevel(server, namespace, ownerId, level, sizes.samples));
    }
  } finally {
    await writer.close();
    await writerNc.close();
  }
  return levels;
}

async function measureLevel(
  server: NatsServerHandle,
  namespace: string,
  ownerId: string,
  level: number,
  samples: number,
): Promise<ApprovalListLevel> {
  const nc = await connectNats(server.url, "approval-bench-lists");
  const store: Store = await openStore({ kind: "kv", nc, namespace });
  try {
    const built = await firstListCost(() => store.approvals.list({ ownerId, page: 1, size: 1 }), level);
    const queries: ApprovalListLevel["queries"] = [];
    for (const status of [undefined, "PENDING", "APPROVED"] as const) {
      const filter = status === undefined ? {} : { status };
      const { total } = await store.approvals.list({ ownerId, ...filter, page: 1, size: PAGE_SIZE });
      for (const [where, page] of pagesTimed(total)) {
        const t = await timed(samples, () => store.approvals.list({ ownerId, ...filter, page, size: PAGE_SIZE }));
        queries.push({ query: `${status ?? "all"}, ${where}`, p50Ms: t.p50, p99Ms: t.p99 });
      }
    }
    const jsm = await jetstreamManager(nc);
    const bucket = `${namespace}_approvals_idx`;
    const filter = `$KV.${bucket}.o.${keyToken(ownerId)}.>`;
    const scan = await timed(Math.max(5, Math.round(samples / 20)), () =>
      jsm.streams.info(`KV_${bucket}`, { subjects_filter: filter }),
    );
    return {
      approvals: level,
      viewBuildMs: built.ms,
      heapBytesPerApproval: built.heapBytesEach,
      queries,
      keyScan: { p50Ms: scan.p50, p99Ms: scan.p99 },
    };
  } finally {
    await store.close();
    await nc.close();
  }
}

export function renderApprovalListBench(levels: readonly ApprovalListLevel[]): string {
  const lines = [`Approval lists of one owner (size ${PAGE_SIZE}; 1 in 50 PENDING)`];
  for (const l of levels) {
    const worst = Math.max(...l.queries.map((q) => q.p99Ms));
    lines.push(
      `  ${l.approvals.toLocaleString("en")} approvals: view built in ${l.viewBuildMs} ms, ${l.heapBytesPerApproval} B of heap each; worst p99 ${worst} ms; ` +
        `the key scan lists made before the view (its server request alone) p50 ${l.keyScan.p50Ms} ms, p99 ${l.keyScan.p99Ms} ms`,
    );
    for (const q of l.queries)
      lines.push(
        `    ${q.query.padEnd(24)} p50 ${String(q.p50Ms).padStart(6)} ms  p99 ${String(q.p99Ms).padStart(6)} ms`,
      );
  }
  return lines.join("\n");
}
