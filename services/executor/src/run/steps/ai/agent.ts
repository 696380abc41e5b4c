import type { AgentDef, AgentStep } from "@wf/shared/workflow";
import type { ToolSpec } from "../../../ai/providers/types";
import type { Attempt, StepAt } from "../step-kind";
import { editedOpening, resumedConversation, type Opening } from "./conversation";
import { keepInput, type AiStepHost } from "./host";
import { listTools, renderServer } from "./mcp-tools";
import { agentParts } from "./prompt-parts";
import { StepCalls } from "./step-calls";
import { runToolCall, type PendingCalls, type ToolCalling } from "./tool-call";
import { ToolRecords } from "./tool-records";

export const DEFAULT_MAX_TURNS = 10;

/** One agent attempt: what its turns share. */
interface AgentAttempt extends ToolCalling {
  readonly agent: AgentDef;
  readonly system: string | undefined;
  readonly specs: ToolSpec[];
}

/**
 * One attempt of an `agent` step: turns of a model call and the tool calls it asks for, until an answer asks for none.
 */
export async function runAgent(host: AiStepHost, step: AgentStep, at: StepAt): Promise<Attempt> {
  const agent = host.workflow.agents?.find((a) => a.name === step.agent);
  if (!agent)
    return { kind: "failed", error: `step \`${step.name}\`: unknown agent \`${step.agent}\``, retryable: false };
  const opening = await agentOpening(host, step, agent, at);
  if ("kind" in opening) return opening;
  const servers = await Promise.all((agent.mcp ?? []).map((s) => renderServer(host, s, at.scope, step.timeout)));
  await host.committer.flush();
  const { tools, specs } = await listTools(host, servers, at.scope.signal);

  // Resuming from a debugger's pause inside the attempt: its calls so far are not made again.
  const resumed = resumedConversation(host, at);
  const run: AgentAttempt = {
    host,
    at,
    agent,
    system: opening.system,
    tools,
    specs,
    calls: new StepCalls(host, at, resumed),
    records: new ToolRecords(host, at, resumed !== null),
    messages: resumed?.messages ?? opening.messages,
  };
  let pending = resumed?.pending ?? null;
  const maxTurns = agent.max_turns ?? DEFAULT_MAX_TURNS;
  for (let turn = resumed?.turn ?? 1; turn <= maxTurns; turn++) {
    const output = await runTurn(run, turn, pending);
    if (output !== null) return { kind: "completed", output };
    pending = null;
  }
  return {
    kind: "failed",
    error: `step \`${step.name}\`: agent \`${agent.name}\` did not finish within max_turns (${maxTurns})`,
    retryable: false,
  };
}

/** The conversation the attempt starts from; a monitored step keeps it as its input. */
async function agentOpening(
  host: AiStepHost,
  step: AgentStep,
  agent: AgentDef,
  at: StepAt,
): Promise<Opening | Attempt> {
  const { path, state: st, scope, input } = at;
  const monitored = host.committer.snap.enableMonitoring;
  if (input) return editedOpening(host, step.name, { ...at, input }, { agent: agent.name, model: agent.model });
  const parts = await agentParts(host, step, agent, scope);
  if (monitored) keepInput(host, path, st, { agent: agent.name, model: agent.model, prompt: parts.prompt });
  return { system: parts.instructions, messages: [{ role: "user", text: parts.prompt }] };
}

/**
 * One turn: the model's answer (or, resuming among its tool calls, the answer paused at), then
 * the tool calls it asks for. Its text when it asks for none: the step's output.
 */
async function runTurn(run: AgentAttempt, turn: number, resumedAt: PendingCalls | null): Promise<string | null> {
  let pending = resumedAt;
  if (!pending) {
    const { agent, system, messages } = run;
    const answer = await run.calls.call(
      { model: agent.model, ...(system === undefined ? {} : { system }), messages, tools: run.specs },
      () => ({
        turn,
        messages,
        pending: null,
      }),
    );
    if (answer.toolCalls.length === 0) return answer.text;
    messages.push({ role: "assistant", text: answer.text, toolCalls: answer.toolCalls });
    pending = { answer: { text: answer.text, toolCalls: answer.toolCalls }, results: [], index: 0 };
  }
  const { answer, results } = pending;
  for (let index = pending.index; index < answer.toolCalls.length; index++)
    results.push(await runToolCall(run, turn, { answer, results, index }));
  run.messages.push({ role: "tool", results });
  return null;
}
