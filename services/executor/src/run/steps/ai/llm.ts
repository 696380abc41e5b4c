import { OutputSchema } from "@wf/shared/expressions";
import type { LlmStep } from "@wf/shared/workflow";
import type { ChatRequest } from "../../../ai/providers/types";
import type { Attempt, StepAt } from "../step-kind";
import { editedOpening, resumedConversation, type Opening } from "./conversation";
import { keepInput, type AiStepHost } from "./host";
import { llmParts, withSchemaInstruction } from "./prompt-parts";
import { StepCalls } from "./step-calls";

/** One attempt of an `llm` step: a call, and one repair when its answer does not satisfy `output_schema`. */
export async function runLlm(host: AiStepHost, step: LlmStep, at: StepAt): Promise<Attempt> {
  const opening = await llmOpening(host, step, at);
  if ("kind" in opening) return opening;
  let schema: OutputSchema | null = null;
  if (step.output_schema !== undefined) {
    try {
      schema = await OutputSchema.compile(step.output_schema, host.committer.snap.ownerId, at.scope.signal);
    } catch (err) {
      if (at.scope.signal.aborted) throw err;
      return {
        kind: "failed",
        error: `step \`${step.name}\`: ${(err as Error).message}`,
        retryable: false,
      };
    }
  }
  // The attempt's start must be durable before the provider bills anything.
  await host.committer.flush();
  const resumed = resumedConversation(host, at);
  const calls = new StepCalls(host, at, resumed);
  const request: Omit<ChatRequest, "messages"> = {
    model: step.model,
    ...(opening.system === undefined ? {} : { system: opening.system }),
    ...(step.temperature === undefined ? {} : { temperature: step.temperature }),
    ...(step.max_tokens === undefined ? {} : { maxTokens: step.max_tokens }),
    ...(step.output_schema === undefined ? {} : { jsonSchema: step.output_schema }),
  };
  // The first call, and one repair when the answer does not satisfy `output_schema`.
  let messages = resumed?.messages ?? opening.messages;
  for (;;) {
    const sent = messages;
    const answer = await calls.call({ ...request, messages }, () => ({ turn: 1, messages: sent, pending: null }));
    if (schema === null) return { kind: "completed", output: answer.text };
    const checked = await schema.check(answer.text, at.scope.signal);
    if (checked.ok) return { kind: "completed", output: checked.value };
    if (calls.count >= 2) {
      return {
        kind: "failed",
        error: `step \`${step.name}\`: the answer does not satisfy \`output_schema\` after one repair attempt: ${checked.problems}`,
        retryable: true,
      };
    }
    messages = [
      ...messages,
      { role: "assistant", text: answer.text, toolCalls: [] },
      {
        role: "user",
        text: `That answer does not satisfy the JSON Schema: ${checked.problems}. Answer again with only the corrected JSON.`,
      },
    ];
  }
}

/** The conversation the attempt starts from; a monitored step keeps it as its input. */
async function llmOpening(host: AiStepHost, step: LlmStep, at: StepAt): Promise<Opening | Attempt> {
  const { path, state: st, scope, input } = at;
  const monitored = host.committer.snap.enableMonitoring;
  if (input) return editedOpening(host, step.name, { ...at, input }, { model: step.model });
  const parts = await llmParts(host, step, scope);
  if (monitored)
    keepInput(host, path, st, {
      model: step.model,
      ...(parts.system === undefined ? {} : { system: parts.system }),
      prompt: parts.prompt,
    });
  return {
    system: withSchemaInstruction(parts.system, step.output_schema).system,
    messages: [{ role: "user", text: parts.prompt }],
  };
}
