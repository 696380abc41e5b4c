/** Published figures of other systems and this machine's raw limits, for the comparison columns. */
export const PUBLISHED = {
  chain40: {
    source: "Windmill's published study, 40 sequential light steps, 2 vCPU",
    seconds: { Hatchet: 1.22, "Windmill dedicated worker": 2.09, Temporal: 2.97 },
  },
  /** A different benchmark (webhook ingest, not 3-step completions): listed for context only. */
  ingestContext: {
    source: "published single-instance figures, webhook request to durable 202 PENDING",
    perSec: { "n8n single instance": 220, "Kestra OSS": 25 },
  },
  /** This machine's raw limits as measured when the targets were set, to see how loaded the machine is now. */
  designRaw: { publishPerSec: 16_000, casPerSec: 5_800 },
} as const;

export const AIMS = {
  chainJavascriptS: 0.4,
  chainPythonS: 1.2,
  workflowsPerSec: 1_000,
  /** Sustained 3-step workflows as a share of the raw bound the bench prints, by step kind. */
  boundShare: { javascript: 0.7, transform: 0.8 },
  /** What one sustained 3-step workflow may cost, in raw KV compare-and-set updates of throughput. */
  casPerWorkflow: 15,
  /** Median wall time of one light code step through the code runner, warm. */
  codeStepJavascriptMs: 1,
  codeStepPythonMs: 15,
} as const;
