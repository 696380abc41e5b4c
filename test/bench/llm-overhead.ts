/**
 * The overhead of an `llm` step: one-step executions run end to end (start command to the
 * exec_completed event at the client), an `llm` step against a `transform` step in the same
 * workflow shape, next to the provider's own response time (the same request POSTed straight to
 * the same test provider, from the same process). added = llm run - transform run - provider.
 * The three are sampled in turn, so that all see the same machine.
 */
import { newId } from "@wf/shared/execution";
import type { NatsServerHandle } from "@wf/testing";
import { startRuntime, testConfig } from "../support/runtime";
import { LlmTestServer } from "../ai/support/llm-server";
import { withTimeout } from "./bounded";
import { openClient, openTarget, starter, type Target } from "./context";
import { round, summarize, type Summary } from "./stats";

export interface LlmOverheadSizes {
  warmup: number;
  runs: number;
  timeoutMs: number;
}

export const LLM_OVERHEAD_SIZES: LlmOverheadSizes = { warmup: 30, runs: 300, timeoutMs: 10_000 };
export const LLM_OVERHEAD_QUICK_SIZES: LlmOverheadSizes = { warmup: 10, runs: 60, timeoutMs: 10_000 };
export const LLM_OVERHEAD_AIM_MS = 2;

export interface LlmOverheadResult {
  sizes: LlmOverheadSizes;
  /** One POST of the step's request straight to the provider, answer read (ms). */
  providerMs: Summary;
  /** Start to exec_completed of a one-`llm`-step execution (ms). */
  llmRunMs: Summary;
  /** The same with a `transform` step: what any one-step execution costs (ms). */
  transformRunMs: Summary;
  /** Medians: llm run - transform run - provider. */
  addedMs: number;
  aimMet: boolean;
  failures: string[];
  seconds: number;
}

const PROMPT = "Summarise the ticket in one line.";
const ANSWER = "The customer was billed twice and asks for a refund.";

export async function runLlmOverhead(
  server: NatsServerHandle,
  sizes: LlmOverheadSizes,
  opts: { track?: (close: () => Promise<void>) => () => void; progress?: (line: string) => void } = {},
): Promise<LlmOverheadResult> {
  const started = performance.now();
  const track = opts.track ?? (() => () => undefined);
  const provider = await LlmTestServer.start("openai");
  const untrackProvider = track(() => provider.close());
  const model = `bench-${newId()}`;
  const total = (sizes.warmup + sizes.runs) * 2;
  for (let i = 0; i < total; i++) provider.script(model, { text: ANSWER, usage: { prompt: 24, completion: 12 } });

  const rt = await startRuntime(
    testConfig(server, {
      WF_LLM_PROVIDERS: JSON.stringify([
        { name: "bench", protocol: "openai", baseUrl: provider.baseUrl, apiKey: "sk-bench" },
      ]),
      WF_LLM_PRICES: JSON.stringify({ [model]: { input: 0.15, output: 0.6 } }),
    }),
  );
  const untrackRt = track(() => rt.stop());
  const client = await openClient(server.url);
  const untrackClient = track(() => client.close());
  const failures: string[] = [];
  let t: Target | undefined;
  try {
    t = await openTarget(client, rt);
    const target = t;
    const llm = starter(
      t,
      `name: bench-llm\nsteps:\n  - { name: ask, type: llm, model: ${model}, prompt: "${PROMPT}" }\n`,
    );
    const transform = starter(
      t,
      `name: bench-transform\nsteps:\n  - { name: ask, type: transform, output: "${ANSWER}" }\n`,
    );
    const url = `${provider.baseUrl}/chat/completions`;
    const direct = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: PROMPT }] }),
      });
      await res.json();
      return performance.now() - t0;
    };
    const samples = { provider: [] as number[], llm: [] as number[], transform: [] as number[] };
    opts.progress?.(
      `llm step overhead: ${sizes.warmup} warm-up + ${sizes.runs} rounds (llm run, transform run, direct provider call)`,
    );
    for (let i = 0; i < sizes.warmup + sizes.runs; i++) {
      const timed = i >= sizes.warmup;
      const a = await once(target, transform, "transform", sizes.timeoutMs, failures);
      const b = await once(target, llm, "llm", sizes.timeoutMs, failures);
      const c = await direct();
      if (timed && a !== null && b !== null) {
        samples.transform.push(a);
        samples.llm.push(b);
        samples.provider.push(c);
      }
    }
    const providerMs = summarize(samples.provider);
    const llmRunMs = summarize(samples.llm);
    const transformRunMs = summarize(samples.transform);
    const addedMs = round(llmRunMs.median - transformRunMs.median - providerMs.median, 3);
    return {
      sizes,
      providerMs,
      llmRunMs,
      transformRunMs,
      addedMs,
      aimMet: failures.length === 0 && addedMs < LLM_OVERHEAD_AIM_MS,
      failures,
      seconds: round((performance.now() - started) / 1000, 1),
    };
  } finally {
    t?.watcher.close();
    untrackClient();
    await client.close();
    untrackRt();
    await rt.stop();
    untrackProvider();
    await provider.close();
  }
}

/** One execution, start command to exec_completed at the client (ms); null when it did not complete. */
async function once(
  t: Target,
  start: (id: string) => Promise<string>,
  what: string,
  timeoutMs: number,
  failures: string[],
): Promise<number | null> {
  const id = newId();
  const done = t.watcher.expect(id);
  const t0 = performance.now();
  await start(id);
  try {
    const c = await withTimeout(done, timeoutMs, `${what} run ${id}`);
    if (c.type !== "exec_completed" || c.output !== ANSWER) {
      failures.push(`${what} ${id}: ${c.type} output=${JSON.stringify(c.output)} ${c.error ?? ""}`);
      return null;
    }
    return c.seenAt - t0;
  } catch (err) {
    t.watcher.forget(id);
    failures.push(`${what} ${id}: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

export function renderLlmOverhead(r: LlmOverheadResult): string {
  const row = (label: string, s: Summary) =>
    `  ${label.padEnd(44)} median ${s.median.toFixed(2)} ms  p90 ${s.p90.toFixed(2)} ms  n=${s.n}`;
  return [
    `LLM step overhead (one-step executions in sequence, OpenAI-protocol test provider on localhost; ${r.seconds} s)`,
    row("execution with one llm step", r.llmRunMs),
    row("execution with one transform step (baseline)", r.transformRunMs),
    row("the provider's own response time (direct POST)", r.providerMs),
    `  added by the llm step: ${r.addedMs.toFixed(3)} ms (llm - transform - provider, medians); aim < ${LLM_OVERHEAD_AIM_MS} ms: ${r.aimMet ? "met" : "NOT met"}`,
    ...r.failures.slice(0, 3).map((f) => `  FAILED ${f}`),
  ].join("\n");
}
