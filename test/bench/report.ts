import { AIMS, PUBLISHED } from "./published";
import { round } from "./stats";
import type { Measurements } from "./suite";
import { rawBoundOf, rawOperations } from "./raw-bound";

/** One figure of ours next to one reference. `ratio` is always ours / reference. */
export interface Comparison {
  benchmark: string;
  ours: number;
  unit: "s" | "/s";
  reference: string;
  refValue: number;
  ratio: number;
  reading: string;
}

export interface Verdict {
  aim: string;
  target: string;
  measured: string;
  met: boolean;
}

export interface BenchResult extends Measurements {
  /** Workflows/s if the executor cost nothing but its own KV writes and publishes at the raw rates. */
  rawBoundPerSec: { javascript: number; transform: number | null };
  comparisons: Comparison[];
  verdicts: Verdict[];
  published: typeof PUBLISHED;
  aims: typeof AIMS;
}

/** For times (lower is better): "3.1x faster" / "2.0x slower". */
function timeReading(ratio: number): string {
  if (!Number.isFinite(ratio) || ratio <= 0) return "n/a";
  return ratio <= 1 ? `${round(1 / ratio, 1)}x faster` : `${round(ratio, 1)}x slower`;
}

export function analyse(m: Measurements): BenchResult {
  const comparisons: Comparison[] = [];
  const verdicts: Verdict[] = [];

  for (const language of ["javascript", "python"] as const) {
    const c = m.chains[language];
    const name = `${c.steps} ${language === "javascript" ? "JS" : "Python"} steps, median`;
    const ours = c.endToEndMs.median / 1000;
    const aim = language === "javascript" ? AIMS.chainJavascriptS : AIMS.chainPythonS;
    const time = (reference: string, refS: number, reading?: (r: number) => string): void => {
      const ratio = ours / refS;
      comparisons.push({
        benchmark: name,
        ours: round(ours, 3),
        unit: "s",
        reference,
        refValue: round(refS, 3),
        ratio: round(ratio, 2),
        reading: (reading ?? timeReading)(ratio),
      });
    };
    time("aim", aim, (r) => (r < 1 ? "met" : "not met"));
    time(
      `floor: ${c.steps} CAS + ${c.steps} publishes (median)`,
      c.floorMs.median / 1000,
      (r) => `${round(r, 1)}x the floor`,
    );
    time(
      `naive: ${c.steps} x ${language === "javascript" ? "node -e" : "python3 -c"} (median)`,
      m.naiveSpawnMs[language].median / 1000,
    );
    for (const [who, s] of Object.entries(PUBLISHED.chain40.seconds)) time(`published: ${who}`, s);
    verdicts.push({
      aim: `${c.steps} sequential ${language} steps`,
      target: `< ${aim} s`,
      measured: `median ${round(ours, 3)} s, p90 ${round(c.endToEndMs.p90 / 1000, 3)} s${c.allCompleted ? "" : `, only ${c.completed}/${c.runs} completed`}`,
      met: c.allCompleted && ours < aim,
    });
  }

  const bound = {
    javascript: rawBoundOf(m.throughput.javascript),
    transform: m.throughput.transform ? rawBoundOf(m.throughput.transform) : null,
  };
  for (const t of [m.throughput.javascript, m.throughput.transform]) {
    if (!t) continue;
    const name = `3-step ${t.kind} workflows, steady`;
    const rate = (reference: string, refValue: number, reading: (r: number) => string): void => {
      const ratio = t.steadyPerSec / refValue;
      comparisons.push({
        benchmark: name,
        ours: t.steadyPerSec,
        unit: "/s",
        reference,
        refValue,
        ratio: round(ratio, 2),
        reading: reading(ratio),
      });
    };
    rate("aim", AIMS.workflowsPerSec, (r) => (r >= 1 ? "met" : "not met"));
    const { writes, publishes } = rawOperations(t);
    rate(
      `raw bound: ${round(writes, 1)} writes + ${round(publishes, 1)} publishes per workflow`,
      bound[t.kind] ?? 0,
      (r) => `${Math.round(r * 100)}% of the bound`,
    );
    rate("raw KV CAS updates/s", t.raw.casPerSec, (r) =>
      r > 0 ? `a workflow costs ${round(1 / r, 1)} raw CAS updates` : "n/a",
    );
    rate("raw JetStream publishes/s", t.raw.publishPerSec, (r) =>
      r > 0 ? `a workflow costs ${round(1 / r, 1)} raw publishes` : "n/a",
    );
    // Durable at every effect and park (docs/architecture.md#durability-by-effect): the aim is a
    // share of what JetStream allows for the writes and publishes made, at a CPU cost in CAS updates.
    const share = t.steadyPerSec / (bound[t.kind] ?? Infinity);
    const cas = t.raw.casPerSec / t.steadyPerSec;
    const aimShare = AIMS.boundShare[t.kind];
    verdicts.push({
      aim: `sustained 3-step ${t.kind} workflows`,
      target: `>= ${aimShare * 100}% of the raw bound, <= ${AIMS.casPerWorkflow} raw CAS updates each`,
      measured:
        `${t.steadyPerSec}/s steady (${t.overallPerSec}/s overall) = ${Math.round(share * 100)}% of the bound, ` +
        `${round(cas, 1)} CAS each, ${t.completed}/${t.n} completed, ${t.snapshotWritesPerWorkflow} snapshot writes per workflow`,
      met: t.allCompleted && share >= aimShare && cas <= AIMS.casPerWorkflow,
    });
  }

  // Code-step overhead: the median of a warm light step through the code runner.
  for (const [language, aimMs] of [
    ["javascript", AIMS.codeStepJavascriptMs],
    ["python", AIMS.codeStepPythonMs],
  ] as const) {
    const l = m.codeOverhead.languages[language];
    const aim = `${language === "javascript" ? "JavaScript" : "Python"} code-step overhead (${l?.step ?? "?"}, createCodeRunner, warm)`;
    const target = `< ${aimMs} ms median`;
    if (!l || l.skipped || !l.oursMs) {
      verdicts.push({
        aim,
        target,
        measured: l?.skipped
          ? `skipped: ${l.skipped}`
          : `not measured${l?.failures.length ? `: ${l.failures[0]}` : ""}`,
        met: false,
      });
      continue;
    }
    const bare = l.bareMs
      ? `; ${l.bareCommand} ${round(l.bareMs.median, 2)} ms, ours/bare ${l.ratio?.toFixed(2) ?? "n/a"}`
      : "";
    verdicts.push({
      aim,
      target,
      measured: `median ${round(l.oursMs.median, 2)} ms, p90 ${round(l.oursMs.p90, 2)} ms (n=${l.oursMs.n})${bare}${l.failures.length ? `, ${l.failures.length} failed` : ""}`,
      met: l.failures.length === 0 && l.oursMs.median < aimMs,
    });
  }

  return { ...m, rawBoundPerSec: bound, comparisons, verdicts, published: PUBLISHED, aims: AIMS };
}
