import { ZERO_USAGE, type Usage } from "@wf/shared/execution";
import type { LlmAnswer } from "../../../ai/gateway";
import { addUsage } from "../../../ai/pricing";
import type { ChatRequest } from "../../../ai/providers/types";
import { countLlmCall } from "../../../ops/llm-metrics";
import { DeltaStream } from "../../delta-stream";
import type { StepAt } from "../step-kind";
import type { Conversation } from "./conversation";
import type { AiStepHost } from "./host";

/** A budget check cannot know a prompt's tokens before the call: about four characters make one. */
const CHARS_PER_TOKEN = 4;

/** The execution's `max_cost` would be passed by the next call. */
export class BudgetError extends Error {}

/** The attempt stopped at a debugger's pause inside it (before an LLM call or a tool call): the step parks. */
export class PausedInAttempt extends Error {}

/**
 * The LLM calls of one step attempt: each checked against the execution's budget, streamed to
 * `step_delta` events when the execution is monitored, and accounted (tokens and cost on the
 * step and the execution, and a `step_usage` event) as soon as it returns.
 */
export class StepCalls {
  /** Calls made so far in the attempt. */
  count: number;
  /** What the last of them cost. */
  last: Usage | null;

  constructor(
    private readonly host: AiStepHost,
    private readonly at: StepAt,
    resumed: Conversation | null,
  ) {
    this.count = resumed?.calls ?? 0;
    this.last = resumed?.last ?? null;
  }

  /** `at`: where the attempt stands, should a debugger pause before this call. */
  async call(req: ChatRequest, at: () => Pick<Conversation, "turn" | "messages" | "pending">): Promise<LlmAnswer> {
    const { path, state: st, scope } = this.at;
    const debug = this.host.debug;
    if (debug) {
      const shown = {
        model: req.model,
        ...(req.system === undefined ? {} : { system: req.system }),
        messages: req.messages,
      };
      const verdict = await debug.llmCall(path, this.count + 1, scope, shown, this.last ?? ZERO_USAGE, () => ({
        attempt: st.attempts,
        state: { ...at(), calls: this.count, last: this.last },
      }));
      if (verdict.kind === "park") throw new PausedInAttempt();
    }
    this.checkBudget(req);
    const n = ++this.count;
    const { committer, effects } = this.host;
    const snap = committer.snap;
    const attempt = st.attempts;
    const stream = snap.enableMonitoring
      ? new DeltaStream(committer.masker, (text, batch) =>
          committer.publishLive("step_delta", path, `${snap.id}.delta.${path}.${attempt}.${n}.${batch}`, {
            attempt,
            call: n,
            text,
          }),
        )
      : null;
    let answer: LlmAnswer;
    try {
      answer = await effects.llm(req, scope.signal, stream?.push);
    } finally {
      stream?.end();
    }
    const spent = { ...answer.usage, costUsd: answer.costUsd };
    countLlmCall(answer.provider, req.model, spent);
    this.last = spent;
    st.usage = addUsage(st.usage ?? ZERO_USAGE, spent);
    snap.usage = addUsage(snap.usage, spent);
    committer.emit("step_usage", path, {
      attempt,
      call: n,
      model: req.model,
      provider: answer.provider,
      ...spent,
      stepUsage: st.usage,
      executionUsage: snap.usage,
      ...(answer.waitedMs === undefined ? {} : { waitedMs: answer.waitedMs }),
    });
    return answer;
  }

  /** Refuses a call that would pass `max_cost`: the cost so far plus the prompt's (estimated) cost. */
  private checkBudget(req: ChatRequest): void {
    const max = this.host.workflow.max_cost;
    if (max === undefined) return;
    const price = this.host.effects.llmPrice(req.model);
    if (price === null) {
      throw new BudgetError(
        `model \`${req.model}\` has no price in WF_LLM_PRICES, so the workflow's max_cost ($${max}) cannot be kept`,
      );
    }
    const spent = this.host.committer.snap.usage.costUsd;
    const promptEstimate = (Math.ceil(promptChars(req) / CHARS_PER_TOKEN) * price.input) / 1_000_000;
    if (spent >= max || spent + promptEstimate > max) {
      throw new BudgetError(
        `the execution's budget max_cost $${max} would be passed: $${round6(spent)} spent so far, and the next call (model \`${req.model}\`) costs about $${round6(promptEstimate)} or more; stopped before calling`,
      );
    }
  }
}

function promptChars(req: ChatRequest): number {
  let n = req.system?.length ?? 0;
  for (const m of req.messages) {
    if (m.role === "tool") for (const r of m.results) n += r.content.length;
    else
      n += m.text.length + (m.role === "assistant" ? m.toolCalls.reduce((sum, c) => sum + c.arguments.length, 0) : 0);
  }
  return n + (req.tools ? JSON.stringify(req.tools).length : 0);
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
