import type { NatsConnection } from "@nats-io/nats-core";
import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ExecutionSnapshot, newId, type ExecutionStatus } from "@wf/shared/execution";
import { connectNats } from "@wf/shared/nats";
import { executionLayout, JetStreamPublisher, keyToken, openStore, type Store } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { percentile, round } from "./stats";

export interface ListBenchSizes {
  /** Executions of the one owner at which lists are measured, cumulative, ascending. */
  levels: number[];
  /** Timed lists per query shape and level. */
  samples: number;
  /** Executions written per second, on a connection of their own, while lists are timed. */
  writeRate: number;
}

export const LIST_BENCH_SIZES: ListBenchSizes = {
  levels: [10_000, 100_000, 1_000_000],
  samples: 500,
  writeRate: 1_000,
};
export const LIST_BENCH_QUICK_SIZES: ListBenchSizes = { levels: [10_000, 50_000], samples: 50, writeRate: 500 };

interface QueryTiming {
  query: string;
  p50Ms: number;
  p99Ms: number;
}

export interface ListLevelResult {
  executions: number;
  /** A process that starts listing reads the whole index once: how long, and its heap per execution. */
  indexBuildMs: number;
  heapBytesPerExecution: number;
  queries: QueryTiming[];
  /** Baseline in the same run: reading the 20 records of a page by id, no list involved. */
  baselineGetsP50Ms: number;
  baselineGetsP99Ms: number;
  /** Executions the writer actually created per second while the lists were timed. */
  writtenPerSecond: number;
  /**
   * The collector's pauses in the listing process while lists were timed: the part of the tail that is the collector's.
   */
  gc: GcPauses;
}

export interface ListBenchResult {
  levels: ListLevelResult[];
  seedPerSecond: number;
}

/** Per kind of pause (scavenge, mark-compact, incremental marking step, weak callbacks): how many, and the longest. */
type GcPauses = Record<string, { count: number; maxMs: number }>;

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "scavenge",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "mark-compact",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak callbacks",
};

/** Counts the collector's pauses from now until the returned function is called. */
function watchGc(): () => GcPauses {
  const pauses: GcPauses = {};
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1] ?? "other";
      const p = (pauses[kind] ??= { count: 0, maxMs: 0 });
      p.count += 1;
      p.maxMs = Math.max(p.maxMs, round(entry.duration));
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => {
    observer.disconnect();
    return pauses;
  };
}

const WORKFLOWS = 10;

/**
 * A full collection, for heap figures, whether or not node was started with --expose-gc. The flag
 * is set only while the context that hands out `gc` is made: contexts made afterwards in this
 * process (test files share it) see the globals they would have seen.
 */
function collectGarbage(): void {
  const exposed = typeof (globalThis as { gc?: unknown }).gc === "function";
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  if (!exposed) setFlagsFromString("--no-expose-gc");
  gc();
}
export const PAGE_SIZE = 20;

/** A finished execution as a run of a 3-step workflow leaves it, at its real size. */
function seeded(ownerId: string, i: number, createdAt: number): ExecutionSnapshot {
  const status: ExecutionStatus = i % 20 === 0 ? "RUNNING" : i % 7 === 0 ? "FAILED" : "COMPLETED";
  return ExecutionSnapshot.parse({
    id: newId(),
    workflowId: `wf-${i % WORKFLOWS}`,
    workflowName: `workflow ${i % WORKFLOWS}`,
    ownerId,
    triggerSource: "webhook",
    status,
    totalSteps: 3,
    completedSteps: 3,
    createdAt,
    vars: { order: i, customer: `c-${i % 997}` },
    definition: {},
  });
}

/**
 * Seeds through the buckets' subjects as the store writes them (record and index key), many
 * publishes in flight: a million executions in tens of seconds rather than hours of API calls.
 */
async function seed(
  nc: NatsConnection,
  namespace: string,
  ownerId: string,
  from: number,
  to: number,
  t0: number,
): Promise<void> {
  const publisher = new JetStreamPublisher(nc);
  const window = new Set<Promise<unknown>>();
  try {
    for (let i = from; i < to; i++) {
      const e = seeded(ownerId, i, t0 + i);
      const writes = [
        publisher.publish(`$KV.${namespace}_executions.${keyToken(e.id)}`, JSON.stringify(e)),
        ...executionLayout.keys(e).map((key) => publisher.publish(`$KV.${namespace}_executions_idx.${key}`, e.status)),
      ];
      for (const w of writes) {
        const p = w.finally(() => window.delete(p));
        window.add(p);
      }
      if (window.size >= 4_000) await Promise.race(window);
    }
    await Promise.all(window);
  } finally {
    publisher.close();
  }
}

/** Creates executions at `rate`/s (create, then the status change to COMPLETED) until stopped. */
function steadyWriter(store: Store, ownerId: string, rate: number): { stop(): Promise<number> } {
  let running = true;
  let written = 0;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    let due = started;
    while (running) {
      due += 1_000 / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const e = seeded(ownerId, written, Date.now());
      const p = store.executions
        .create(e)
        .then((v) => store.executions.update({ ...e, status: "COMPLETED" }, v))
        .then(() => void (written += 1))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await Promise.all(inFlight);
      return written / ((performance.now() - started) / 1000);
    },
  };
}

/** What a store's first list costs, which builds its view of `entries` entries: how long, and heap per entry. */
export async function firstListCost(
  first: () => Promise<unknown>,
  entries: number,
): Promise<{ ms: number; heapBytesEach: number }> {
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  await first();
  const ms = Math.round(performance.now() - start);
  collectGarbage();
  return { ms, heapBytesEach: Math.round((process.memoryUsage().heapUsed - heapBefore) / entries) };
}

/** The pages a list is timed at, by name: the first, a middle one and the last of `total` entries. */
export function pagesTimed(total: number): (readonly [string, number])[] {
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return [
    ["page 1", 1],
    ["middle page", Math.ceil(last / 2)],
    ["last page", last],
  ];
}

/** `run` timed `samples` times in a row: its p50 and p99 in ms. */
export async function timed(
  samples: number,
  run: (i: number) => Promise<unknown>,
): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await run(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)) };
}

/**
 * Executions lists of one owner at 10k, 100k and 1M executions, every filter at its first, a middle
 * and its last page, through a store opened afresh per level (its index built from scratch), while a
 * writer in this process (as in an edge that both ingests and lists) writes executions of that owner
 * at `writeRate`/s (docs/operations.md#benchmarks).
 */
export async function runListBench(
  server: NatsServerHandle,
  sizes: ListBenchSizes,
  progress: (line: string) => void,
): Promise<ListBenchResult> {
  const namespace = `listbench${Date.now().toString(36)}`;
  const ownerId = `owner-${newId()}`;
  const writerNc = await connectNats(server.url, "list-bench-writer");
  const writerStore = await openStore({ kind: "kv", nc: writerNc, namespace });
  const levels: ListLevelResult[] = [];
  let seededCount = 0;
  let seedMs = 0;
  const t0 = Date.UTC(2026, 0, 1);
  try {
    for (const level of sizes.levels) {
      progress(`lists: seeding to ${level.toLocaleString("en")} executions of one owner`);
      const seedStart = performance.now();
      await seed(writerNc, namespace, ownerId, seededCount, level, t0);
      seedMs += performance.now() - seedStart;
      seededCount = level;
      levels.push(await measureLevel(server, namespace, ownerId, level, writerStore, sizes, progress));
    }
  } finally {
    await writerStore.close();
    await writerNc.close();
  }
  return { levels, seedPerSecond: Math.round(seededCount / (seedMs / 1000)) };
}

async function measureLevel(
  server: NatsServerHandle,
  namespace: string,
  ownerId: string,
  level: number,
  writerStore: Store,
  sizes: ListBenchSizes,
  progress: (line: string) => void,
): Promise<ListLevelResult> {
  const nc = await connectNats(server.url, "list-bench-lists");
  const store = await openStore({ kind: "kv", nc, namespace });
  try {
    const built = await firstListCost(() => store.executions.list({ ownerId, page: 1, size: 1 }), level);
    const indexBuildMs = built.ms;
    const heapBytesPerExecution = built.heapBytesEach;
    progress(
      `lists: ${level.toLocaleString("en")} executions, index built in ${indexBuildMs} ms; timing lists while writing ${sizes.writeRate}/s`,
    );

    const writer = steadyWriter(writerStore, ownerId, sizes.writeRate);
    const gcDone = watchGc();
    const queries: QueryTiming[] = [];
    const shapes: [string, { workflowId?: string; status?: ExecutionStatus }][] = [
      ["all", {}],
      ["workflow", { workflowId: "wf-3" }],
      ["status COMPLETED", { status: "COMPLETED" }],
      ["status RUNNING", { status: "RUNNING" }],
      ["workflow + status FAILED", { workflowId: "wf-3", status: "FAILED" }],
    ];
    let baseline = { p50: 0, p99: 0 };
    let writtenPerSecond = 0;
    let gc: GcPauses = {};
    try {
      for (const [name, filter] of shapes) {
        const { total } = await store.executions.list({ ownerId, ...filter, page: 1, size: PAGE_SIZE });
        for (let i = 0; i < 20; i++) await store.executions.list({ ownerId, ...filter, page: 1 + i, size: PAGE_SIZE });
        for (const [where, page] of pagesTimed(total)) {
          const t = await timed(sizes.samples, () =>
            store.executions.list({ ownerId, ...filter, page, size: PAGE_SIZE }),
          );
          queries.push({ query: `${name}, ${where}`, p50Ms: t.p50, p99Ms: t.p99 });
        }
      }
      const ids = (await store.executions.list({ ownerId, page: 3, size: PAGE_SIZE })).items.map((e) => e.id);
      baseline = await timed(sizes.samples, () => Promise.all(ids.map((id) => store.executions.get(id))));
    } finally {
      gc = gcDone();
      writtenPerSecond = Math.round(await writer.stop());
    }
    return {
      executions: level,
      indexBuildMs,
      heapBytesPerExecution,
      queries,
      baselineGetsP50Ms: baseline.p50,
      baselineGetsP99Ms: baseline.p99,
      writtenPerSecond,
      gc,
    };
  } finally {
    await store.close();
    await nc.close();
  }
}

export function renderListBench(r: ListBenchResult): string {
  const lines = [
    `Execution lists of one owner (size ${PAGE_SIZE}; store seeded at ${r.seedPerSecond.toLocaleString("en")} executions/s)`,
  ];
  for (const level of r.levels) {
    const worst = Math.max(...level.queries.map((q) => q.p99Ms));
    lines.push(
      `  ${level.executions.toLocaleString("en")} executions: index built in ${level.indexBuildMs} ms, ${level.heapBytesPerExecution} B of heap each; ` +
        `writer at ${level.writtenPerSecond}/s; worst p99 ${worst} ms (aim < 20 ms); baseline (the page's ${PAGE_SIZE} records read by id) p50 ${level.baselineGetsP50Ms} ms, p99 ${level.baselineGetsP99Ms} ms; ` +
        `GC pauses while timed: ${Object.entries(level.gc)
          .map(([kind, p]) => `${p.count} ${kind} (longest ${p.maxMs} ms)`)
          .join(", ")}`,
    );
    for (const q of level.queries) {
      lines.push(
        `    ${q.query.padEnd(40)} p50 ${String(q.p50Ms).padStart(6)} ms  p99 ${String(q.p99Ms).padStart(6)} ms  (${round(q.p50Ms / Math.max(level.baselineGetsP50Ms, 0.01), 1)}× baseline p50)`,
      );
    }
  }
  return lines.join("\n");
}
