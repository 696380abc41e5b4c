import { isolationText, renderCodeOverhead } from "./code-overhead";
import { bareOperationsCpuMs, natsServerAndOthers, rawBoundOf, rawOperations, type RoundRun } from "./raw-bound";
import type { BenchResult } from "./report";
import { round, type Summary } from "./stats";

const int = (x: number): string => Math.round(x).toLocaleString("en-US");
const secs = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const dist = (s: Summary, f: (x: number) => string = secs): string =>
  `median ${f(s.median)}  p90 ${f(s.p90)}  (n=${s.n}, min ${f(s.min)})`;

export function cpuText(cpu: Record<string, number>): string {
  // Roles that did nothing in this part (the Python zygote during JavaScript runs) are left out.
  const entries = Object.entries(cpu)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  return entries.length ? entries.map(([role, v]) => `${role} ${v.toFixed(2)}`).join(", ") : "n/a (no /proc)";
}

/**
 * What the run's CPU per workflow allows with every core busy, against its raw bound: a share of the bound that falls
 * short of this is time the cores idled; a ceiling under the aim is CPU each workflow costs.
 */
function cpuCeilingText(t: RoundRun, cpus: number): string[] {
  const total = Object.values(t.cpuMsPerWorkflow).reduce((a, b) => a + b, 0);
  if (total <= 0) return [];
  const ceiling = (cpus * 1000) / total;
  const share = Math.round((100 * ceiling) / rawBoundOf(t));
  return [
    `  with every core busy, ${total.toFixed(2)} ms of CPU per workflow allows ${int(ceiling)}/s (${share}% of its bound)`,
  ];
}

/**
 * The run's writes and publishes made bare (the raw runs' CPU per operation) beside the run's own CPU: what a workflow
 * costs past its raw bound, told apart between nats-server and the rest.
 */
function bareOperationsText(t: RoundRun): string[] {
  const bare = bareOperationsCpuMs(t);
  if (bare === null) return [];
  const own = natsServerAndOthers(t.cpuMsPerWorkflow);
  const { writes, publishes } = rawOperations(t);
  return [
    `  its ${round(writes, 2)} writes and ${round(publishes, 2)} publishes made bare, at the raw runs' CPU each: nats-server ${bare.natsServer.toFixed(2)} ms, their client ${bare.client.toFixed(2)} ms; ` +
      `this workflow: nats-server ${own.natsServer.toFixed(2)} ms, the service and its runners ${own.others.toFixed(2)} ms`,
  ];
}

/** The service's CPU per workflow by thread, and nats-server's write calls per workflow, where /proc told them. */
function threadsText(t: RoundRun): string[] {
  const th = t.serviceThreadsCpuMsPerWorkflow;
  const writes = t.natsServerWriteCallsPerWorkflow;
  return [
    ...(th
      ? [
          `  the service's CPU by thread: its main thread ${th.mainThread.toFixed(2)}${th.workerThreads > 0 ? `, worker threads ${th.workerThreads.toFixed(2)}` : ""}, the others (V8 compiling and collecting garbage, libuv's pool) ${th.otherThreads.toFixed(2)}`,
        ]
      : []),
    ...(writes === null ? [] : [`  nats-server write calls per workflow (its sockets and its store): ${writes}`]),
  ];
}

/** `align`: one letter per column, "l" or "r" (numbers right, text left). */
function table(rows: string[][], align: string): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const pad = (cell: string, i: number): string =>
    align[i] === "r" ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!);
  return rows.map((r) => r.map(pad).join("  ").trimEnd()).join("\n");
}

/** The human report: measurements, then every comparison with its ratio, then the verdicts. */
export function render(r: BenchResult): string {
  const m = r.machine;
  const out: string[] = [];
  out.push(
    `wf bench${r.quick ? " (BENCH_QUICK: indicative only)" : ""}: ${m.cpus} x ${m.cpuModel}, node ${m.node}, nats-server ${m.natsServer}`,
    `load average at start ${m.loadavgStart.join(" ")}, at end ${m.loadavgEnd.join(" ")}; run took ${r.seconds} s`,
    `code steps (createCodeRunner().isolation()): ${isolationText(r.codeOverhead.isolation)}`,
    "",
    "Baselines (same server, same run)",
  );
  const rounds = r.raw.rounds;
  const first = rounds[0]!;
  out.push(
    table(
      [
        ["measure", ...rounds.map((_, i) => `#${i + 1}`), "mean", "reference"],
        [
          `(a) JetStream async publish, ${first.publishMessages} x ~190 B`,
          ...rounds.map((x) => `${int(x.publishPerSec)}/s`),
          `${int(r.raw.publishPerSec)}/s`,
          `${int(r.published.designRaw.publishPerSec)}/s`,
        ],
        [
          `(b) KV CAS update, ${first.casKeys} keys x ${first.casUpdates / first.casKeys} in sequence`,
          ...rounds.map((x) => `${int(x.casPerSec)}/s`),
          `${int(r.raw.casPerSec)}/s`,
          `${int(r.published.designRaw.casPerSec)}/s`,
        ],
      ],
      `l${"r".repeat(rounds.length + 2)}`,
    ),
    "  #: measured before each throughput round and after each of its runs; a run's ratios are to the mean of the two beside it",
    "",
  );
  out.push(renderCodeOverhead(r.codeOverhead), "");
  for (const c of Object.values(r.chains)) {
    out.push(
      `${c.steps} sequential ${c.language} steps (${c.warmup} warm-up, ${c.runs} runs, ${c.completed} completed)`,
      `  ours, publish -> exec_completed   ${dist(c.endToEndMs)}`,
      `  ours, executor start -> end       ${dist(c.executorMs)}`,
      `  (c) floor: ${c.steps} CAS + publishes  ${dist(c.floorMs)}  (snapshot ${c.snapshotBytes.first}..${c.snapshotBytes.last} B)`,
      `  (d) naive spawn chain             ${dist(r.naiveSpawnMs[c.language])}`,
      `  per run: ${c.writesPerRun} snapshot writes, ${c.eventsPerRun} events; samples (ms): ${c.samplesMs.join(" ")}`,
      `  CPU ms per run: ${cpuText(c.cpuMsPerRun)}`,
      ...c.failures.map((f) => `  FAILED ${f}`),
      "",
    );
  }
  for (const t of [r.throughput.javascript, r.throughput.transform]) {
    if (!t) continue;
    out.push(
      `Sustained 3-step ${t.kind} workflows: ${t.n} fired, ${t.completed} completed, ${t.failed} failed, ${t.missing} missing`,
      `  steady (10th-90th percentile completion) ${int(t.steadyPerSec)}/s, overall ${int(t.overallPerSec)}/s, commands acked at ${int(t.firePerSec)}/s`,
      `  rounds: ${r.throughput.rounds[t.kind].map((x) => `${int(x.steadyPerSec)}/s (${Math.round(x.share * 100)}% of its bound)`).join(", ")}; this is the median one`,
      `  per workflow: ${t.snapshotWritesPerWorkflow} snapshot writes, ${t.indexWritesPerWorkflow} index puts, ${t.eventsPerWorkflow} events; latency under load ${dist(t.latencyMs, ms)}`,
      ...(t.natsMessagesPerWorkflow
        ? [
            `  NATS messages per workflow (every client's, the bench's own included): ${t.natsMessagesPerWorkflow.received} to the server, ${t.natsMessagesPerWorkflow.sent} from it`,
          ]
        : []),
      `  stored per workflow: its record ${int(t.recordBytesPerWorkflow)} B at rest, its events ${int(t.eventBytesPerWorkflow)} B (subjects and headers included)`,
      `  CPU ms per workflow (wall ${t.wallMsPerWorkflow} ms, so ${m.cpus} cores give ${(m.cpus * t.wallMsPerWorkflow).toFixed(2)}): ${cpuText(t.cpuMsPerWorkflow)}`,
      ...threadsText(t),
      ...bareOperationsText(t),
      ...cpuCeilingText(t, m.cpus),
      "",
    );
  }
  out.push(
    "Comparisons (ratio = ours / reference)",
    table(
      [
        ["benchmark", "ours", "reference", "value", "ratio", "reading"],
        ...r.comparisons.map((c) => [
          c.benchmark,
          c.unit === "s" ? `${c.ours.toFixed(3)} s` : `${int(c.ours)}/s`,
          c.reference,
          c.unit === "s" ? `${c.refValue.toFixed(3)} s` : `${int(c.refValue)}/s`,
          c.ratio.toFixed(2),
          c.reading,
        ]),
      ],
      "lrlrrl",
    ),
    "",
    `Published context only, a different benchmark (${r.published.ingestContext.source}): ` +
      Object.entries(r.published.ingestContext.perSec)
        .map(([k, v]) => `${k} ${v}/s`)
        .join(", "),
    "",
    "Verdicts",
    table(
      r.verdicts.map((v) => [v.aim, v.target, v.met ? "MET" : "NOT MET", v.measured]),
      "llll",
    ),
  );
  return out.join("\n");
}
