/**
 * What a workflow leaves on disk (docs/operations.md#disk): `workflows` sustained 3-step transform workflows with
 * WF_STORE_COMPRESSION=none, then the same with `s2` in a namespace of its own (where the server has compression,
 * 2.10+), each followed by `gets` direct gets of its execution records at random places in the bucket. Baseline, in
 * the same run: the `none` namespace. Bytes on disk are the stream's `msgs/` directory in the server's store; a block
 * is compressed once the next begins, so the last block of each stream counts as written.
 */
import { serverHasCompression, streamNames, type StoreCompression } from "@wf/shared/nats";
import type { NatsServerHandle } from "@wf/testing";
import { streamBytesOnDisk } from "../support/stream-disk";
import { openClient, type Client } from "./context";
import { percentile, round, summarize, type Summary } from "./stats";
import { withRuntime } from "./suite";
import { runThroughput } from "./throughput";

export interface DiskBenchSizes {
  workflows: number;
  gets: number;
}

export const DISK_BENCH_SIZES: DiskBenchSizes = { workflows: 20_000, gets: 3_000 };
export const DISK_BENCH_QUICK_SIZES: DiskBenchSizes = { workflows: 500, gets: 100 };

/** Bytes per workflow a stream holds: as the server counts them (uncompressed), and as its files take on disk. */
export interface StreamBytes {
  stored: number;
  onDisk: number;
}

export interface DiskRun {
  compression: StoreCompression;
  steadyPerSec: number;
  events: StreamBytes;
  records: StreamBytes;
  /** Wall ms of one direct get of a record at a random place in the bucket. */
  getMs: Summary;
  /** Their 99th percentile: a get that reaches a block the server has to read and decompress. */
  getP99Ms: number;
}

export interface DiskBenchResult {
  sizes: DiskBenchSizes;
  natsServer: string;
  runs: DiskRun[];
  /** Why there is no `s2` run. */
  skipped?: string;
}

/** How long the server may take to compress its sealed blocks before a reading is taken. */
const SETTLE_MS = 10_000;

export async function runDiskBench(
  server: NatsServerHandle,
  sizes: DiskBenchSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<DiskBenchResult> {
  const client = await openClient(server.url);
  const untrack = opts.track(() => client.close());
  try {
    const kinds: StoreCompression[] = serverHasCompression(server.version) ? ["none", "s2"] : ["none"];
    const runs: DiskRun[] = [];
    for (const compression of kinds) {
      opts.progress(`disk: ${sizes.workflows} x 3-step transform workflows, WF_STORE_COMPRESSION=${compression}`);
      runs.push(await diskRun(server, client, compression, sizes, opts.track));
    }
    return {
      sizes,
      natsServer: server.version,
      runs,
      ...(kinds.length === 1 ? { skipped: `nats-server ${server.version} has no compression (2.10+)` } : {}),
    };
  } finally {
    untrack();
    await client.close();
  }
}

async function diskRun(
  server: NatsServerHandle,
  client: Client,
  compression: StoreCompression,
  sizes: DiskBenchSizes,
  track: (close: () => Promise<void>) => () => void,
): Promise<DiskRun> {
  let run: DiskRun | undefined;
  await withRuntime(
    server,
    client,
    { WF_EXEC_CONCURRENCY: "256", WF_STORE_COMPRESSION: compression },
    track,
    async (t) => {
      const n = sizes.workflows;
      const r = await runThroughput(t, { kind: "transform", n, warmupN: 0, window: 512, timeoutMs: 300_000 });
      if (!r.allCompleted) throw new Error(`disk bench: ${r.completed} of ${n} workflows completed`);
      const events = streamNames(t.ns).evt;
      const records = `KV_${t.ns}_executions`;
      const [eventBytes, recordBytes] = [
        await settledBytes(client, server, events),
        await settledBytes(client, server, records),
      ];
      run = {
        compression,
        steadyPerSec: r.steadyPerSec,
        events: { stored: Math.round(eventBytes.stored / n), onDisk: Math.round(eventBytes.onDisk / n) },
        records: { stored: Math.round(recordBytes.stored / n), onDisk: Math.round(recordBytes.onDisk / n) },
        ...(await randomGets(client, records, `$KV.${records.slice("KV_".length)}.>`, sizes.gets)),
      };
    },
  );
  return run!;
}

/** A stream's bytes once its files stop shrinking (the server compresses sealed blocks in the background). */
async function settledBytes(client: Client, server: NatsServerHandle, stream: string): Promise<StreamBytes> {
  const stored = (await client.jsm.streams.info(stream)).state.bytes;
  const onDisk = () => streamBytesOnDisk(server, stream);
  const until = Date.now() + SETTLE_MS;
  let last = onDisk();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = onDisk();
    if (now === last || Date.now() > until) return { stored, onDisk: now };
    last = now;
  }
}

async function randomGets(
  client: Client,
  stream: string,
  subject: string,
  gets: number,
): Promise<{ getMs: Summary; getP99Ms: number }> {
  const last = (await client.jsm.streams.info(stream)).state.last_seq;
  const times: number[] = [];
  for (let i = 0; i < gets; i++) {
    const seq = 1 + Math.floor(Math.random() * last);
    const t0 = performance.now();
    await client.jsm.direct.getMessage(stream, { seq, next_by_subj: subject });
    times.push(performance.now() - t0);
  }
  return {
    getMs: summarize(times),
    getP99Ms: percentile(
      [...times].sort((a, b) => a - b),
      99,
    ),
  };
}

export function renderDiskBench(r: DiskBenchResult): string {
  const base = r.runs.find((run) => run.compression === "none")!;
  const lines = [
    `Disk per workflow: ${r.sizes.workflows} sustained 3-step transform workflows each, nats-server ${r.natsServer}; bytes as stored and on disk (the last block of a stream as written)`,
    `  compression  events stored  on disk  record stored  on disk  direct get p50 / p99     steady/s`,
  ];
  for (const run of r.runs) {
    lines.push(
      `  ${run.compression.padEnd(11)}  ${`${run.events.stored} B`.padStart(13)}  ${`${run.events.onDisk} B`.padStart(7)}  ${`${run.records.stored} B`.padStart(13)}  ${`${run.records.onDisk} B`.padStart(7)}  ${`${round(run.getMs.median, 3)} / ${round(run.getP99Ms, 3)} ms`.padStart(20)}  ${String(run.steadyPerSec).padStart(8)}`,
    );
  }
  for (const run of r.runs.filter((x) => x !== base)) {
    lines.push(
      `  ${run.compression} / none: events on disk ${round(run.events.onDisk / base.events.onDisk, 2)}, records on disk ${round(run.records.onDisk / base.records.onDisk, 2)}, direct get p99 ${round(run.getP99Ms / base.getP99Ms, 2)}`,
    );
  }
  if (r.skipped) lines.push(`  s2 not run: ${r.skipped}`);
  return lines.join("\n");
}
