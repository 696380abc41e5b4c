/**
 * What the scheduler's stranded-execution sweep costs when many executions wait: `open` RUNNING and `open`
 * AWAITING_APPROVAL executions, swept in passes of `batch` of each status until every one was looked at. None is
 * stranded but one more, the newest: the first cycle must send its resume, and no pass anything else. Half the RUNNING ones are held for ten minutes by a live executor whose
 * command is stored (a long step: one stream read each), half parked on a wait due tomorrow (no read); every awaiting
 * one has a PENDING approval that expires tomorrow (one record read each). Baseline, in the same run: the reads a
 * sweep cannot do without (each open execution's record, and those above) one after another, without the sweep.
 */
import { newId } from "@wf/shared/execution";
import { streamNames, subjects } from "@wf/shared/nats";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import type { NatsServerHandle } from "@wf/testing";
import { startStrandedSweep } from "@wf/scheduler";
import { approvalOf, awaitingApproval, openExecution, runningStep } from "../support/open-executions";
import { testConfig } from "../support/runtime";
import { runBounded } from "./bounded";
import { cpuBetween, sampleCpu, type CpuSample } from "./cpu";
import { round, summarize, type Summary } from "./stats";

export interface SweepBenchSizes {
  /** Open executions of each status. */
  open: number;
  /** Executions of each status a pass looks at (the sweep's own default is 1,000). */
  batch: number;
  /** Full cycles over every open execution, each timed. */
  cycles: number;
}

export const SWEEP_BENCH_SIZES: SweepBenchSizes = { open: 5_000, batch: 1_000, cycles: 3 };
export const SWEEP_BENCH_QUICK_SIZES: SweepBenchSizes = { open: 200, batch: 100, cycles: 1 };

export interface SweepBenchResult {
  sizes: SweepBenchSizes;
  /** Passes a cycle takes: every open execution looked at once. */
  passesPerCycle: number;
  /** Wall ms of one pass (`batch` of each status). */
  passMs: Summary;
  /** Wall ms of the reads a cycle makes, one after another, without the sweep. */
  bareCycleMs: Summary;
  /** Wall ms of one cycle through the sweep. */
  cycleMs: Summary;
  /** Median cycle / median bare reads. */
  ratio: number;
  /** CPU ms per pass of this process (the sweep) and of nats-server. */
  cpuMsPerPass: Record<string, number>;
  /** Commands the first (untimed) cycle sent: 1, the stranded one's resume. */
  sentByFirstCycle: number;
  /** Commands all passes sent: 1 as well, since the resume stays queued (no service takes it). */
  sent: number;
  seedSeconds: number;
}

const T0 = Date.now() - 600_000;
const TOMORROW = Date.now() + 86_400_000;

interface Seeded {
  executionIds: string[];
  /** Stream sequences of the held executions' commands. */
  commandSeqs: number[];
  approvalIds: string[];
}

async function seed(p: Platform, open: number): Promise<Seeded> {
  const ns = p.config.WF_NAMESPACE;
  const executionIds: string[] = [];
  const commandSeqs: number[] = [];
  const approvalIds: string[] = [];
  await runBounded(open, 64, async (i) => {
    if (i % 2 === 0) {
      const id = newId();
      const ack = await p.js.publish(subjects(ns).execStart(id), JSON.stringify({ executionId: id }));
      commandSeqs.push(ack.seq);
      const holder = { actor: "executor-alive", seq: ack.seq, since: T0 };
      await p.store.executions.create(
        openExecution(T0, { id, holder, steps: { llm: runningStep("llm", "ai_agent", T0) } }),
      );
      executionIds.push(id);
    } else {
      const e = openExecution(T0, { steps: { pause: runningStep("pause", "wait", T0, { waitUntil: TOMORROW }) } });
      await p.store.executions.create(e);
      executionIds.push(e.id);
    }
  });
  await runBounded(open, 64, async () => {
    const [e, approval] = awaitingApproval(T0, (e) => approvalOf(e, { timeout: 86_400, expiresAt: TOMORROW }));
    await p.store.approvals.create(approval);
    await p.store.executions.create(e);
    executionIds.push(e.id);
    approvalIds.push(approval.id);
  });
  // The newest open execution is stranded, its wait's timer lost: a cycle that reaches it sends its resume.
  const stranded = runningStep("pause", "wait", T0, { waitUntil: T0 });
  await p.store.executions.create(openExecution(T0 + 1_000, { steps: { pause: stranded } }));
  return { executionIds, commandSeqs, approvalIds };
}

export async function runSweepBench(
  server: NatsServerHandle,
  sizes: SweepBenchSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<SweepBenchResult> {
  const p = await openPlatform(testConfig(server), "sweep-bench");
  const untrack = opts.track(() => p.close());
  const sweep = startStrandedSweep(p, p.log, sizes.batch);
  try {
    opts.progress(`stranded sweep: seeding ${sizes.open} RUNNING and ${sizes.open} AWAITING_APPROVAL executions`);
    const seededAt = performance.now();
    const seeded = await seed(p, sizes.open);
    const seedSeconds = round((performance.now() - seededAt) / 1000, 1);
    // A page shorter than the batch is the last: the next pass starts again from the oldest.
    const passesPerCycle = Math.floor((sizes.open + 1) / sizes.batch) + 1;
    const cmd = streamNames(p.config.WF_NAMESPACE).cmd;
    const bareCycle = async (): Promise<number> => {
      const t0 = performance.now();
      for (const id of seeded.executionIds) await p.store.executions.get(id);
      for (const seq of seeded.commandSeqs) await p.jsm.streams.getMessage(cmd, { seq });
      for (const id of seeded.approvalIds) await p.store.approvals.get(id);
      return performance.now() - t0;
    };
    const passes: number[] = [];
    const cycles: number[] = [];
    const bare: number[] = [];
    let sent = 0;
    // Untimed: the first pass builds the lists' view, the first reads warm the client.
    for (let i = 0; i < passesPerCycle; i++) sent += await sweep.sweep();
    const sentByFirstCycle = sent;
    await bareCycle();
    // CPU of the passes only: the bare reads run between the cycles.
    const spent: CpuSample = new Map();
    for (let c = 1; c <= sizes.cycles; c++) {
      opts.progress(`stranded sweep: cycle ${c} of ${sizes.cycles}, ${passesPerCycle} passes, then the bare reads`);
      const cpu0 = sampleCpu();
      const t0 = performance.now();
      for (let i = 0; i < passesPerCycle; i++) {
        const p0 = performance.now();
        sent += await sweep.sweep();
        passes.push(performance.now() - p0);
      }
      cycles.push(performance.now() - t0);
      for (const [role, ms] of sampleCpu()) spent.set(role, (spent.get(role) ?? 0) + ms - (cpu0.get(role) ?? 0));
      bare.push(await bareCycle());
    }
    const cycleMs = summarize(cycles);
    const bareCycleMs = summarize(bare);
    const cpu = cpuBetween(new Map(), spent, sizes.cycles * passesPerCycle);
    return {
      sizes,
      passesPerCycle,
      passMs: summarize(passes),
      bareCycleMs,
      cycleMs,
      ratio: round(cycleMs.median / bareCycleMs.median),
      cpuMsPerPass: cpu,
      sentByFirstCycle,
      sent,
      seedSeconds,
    };
  } finally {
    await sweep.stop();
    untrack();
    await p.close();
  }
}

export function renderSweepBench(r: SweepBenchResult): string {
  const { open, batch } = r.sizes;
  return [
    `Stranded-execution sweep with ${(open + 1).toLocaleString("en-US")} RUNNING and ${open.toLocaleString("en-US")} AWAITING_APPROVAL executions open (seeded in ${r.seedSeconds} s), ${batch.toLocaleString("en-US")} of each per pass`,
    `  a pass:                     median ${r.passMs.median} ms, max ${r.passMs.max} ms (n=${r.passMs.n})`,
    `  a cycle (${r.passesPerCycle} passes, each open execution looked at once): median ${r.cycleMs.median} ms`,
    `  the same reads, bare:       median ${r.bareCycleMs.median} ms (${2 * open} record gets, ${Math.ceil(open / 2)} command gets, ${open} approval gets, one after another)`,
    `  cycle / bare reads:         ${r.ratio}`,
    `  CPU ms per pass: ${Object.entries(r.cpuMsPerPass)
      .map(([role, ms]) => `${role} ${ms}`)
      .join(", ")}`,
    `  commands sent: ${r.sentByFirstCycle} by the first cycle, ${r.sent} in all (1 and 1 are right: the resume of the one stranded, the newest)`,
  ].join("\n");
}
