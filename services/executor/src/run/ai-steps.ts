import { ZERO_USAGE, type StepState, type ToolCallRecord, type Usage } from "@wf/shared/execution";
import type { AgentDef, AgentStep, LlmStep } from "@wf/shared/workflow";
import type { LlmAnswer } from "../ai/gateway";
import { McpConnectError, type McpServerTarget, type McpToolResult } from "../ai/mcp-pool";
import { checkAnswer, compileOutputSchema } from "../ai/output-schema";
import { addUsage } from "../ai/pricing";
import { countLlmCall } from "../ops/llm-metrics";
import { ProviderError, type ChatMessage, type ChatRequest, type ToolSpec } from "../ai/providers/types";
import { Conversation, ConversationInput } from "./ai-conversation";
import { jsonBytes } from "./result-limits";
import { DeltaStream } from "./delta-stream";
import type { Scope } from "./scope";
import type { StepContext } from "./steps/step-kind";

/** What an `llm` or `agent` step needs of the run that executes it. */
type AiStepHost = Pick<StepContext, "committer" | "effects" | "workflow" | "render" | "debug">;

export type AiAttempt = { kind: "completed"; output: unknown } | { kind: "failed"; error: string; retryable: boolean } | { kind: "parked" };

const DEFAULT_MAX_TURNS = 10;
/** Tool arguments and results are cut to this in the step's record (the model sees them whole). */
const RECORDED_CHARS = 8 * 1024;
/** A budget check cannot know a prompt's tokens before the call: about four characters make one. */
const CHARS_PER_TOKEN = 4;

/** The execution's `max_cost` would be passed by the next call. */
class BudgetError extends Error {}

/** The attempt stopped at a debugger's pause inside it (before an LLM call or a tool call): the step parks. */
class PausedInAttempt extends Error {}

/** A debugger's `set input` for an llm or agent step. */
type EditedInput = { value: unknown } | undefined;

/** Runs one attempt of an `llm` or `agent` step; `input`: the conversation a debugger's `set` gave it. */
export async function runAiStep(
  host: AiStepHost,
  step: LlmStep | AgentStep,
  path: string,
  st: StepState,
  scope: Scope,
  input?: EditedInput,
): Promise<AiAttempt> {
  try {
    return step.type === "llm" ? await runLlm(host, step, path, st, scope, input) : await runAgent(host, step, path, st, scope, input);
  } catch (err) {
    if (err instanceof PausedInAttempt) return { kind: "parked" };
    if (err instanceof ProviderError || err instanceof McpConnectError) {
      return { kind: "failed", error: `step \`${step.name}\`: ${err.message}`, retryable: err.retryable };
    }
    if (err instanceof BudgetError) return { kind: "failed", error: `step \`${step.name}\`: ${err.message}`, retryable: false };
    throw err;
  }
}

/** The request of an llm or agent step as a debugger shows it before the step: the exact first call. */
export async function aiStepInput(host: AiStepHost, step: LlmStep | AgentStep, scope: Scope): Promise<unknown> {
  if (step.type === "llm") {
    const { prompt, system } = await llmParts(host, step, scope);
    return { model: step.model, ...withSchemaInstruction(system, step.output_schema), messages: [{ role: "user", text: prompt }] };
  }
  const agent = host.workflow.agents?.find((a) => a.name === step.agent);
  if (!agent) return undefined;
  const { prompt, instructions } = await agentParts(host, step, agent, scope);
  return { model: agent.model, ...(instructions === undefined ? {} : { system: instructions }), messages: [{ role: "user", text: prompt }] };
}

async function llmParts(host: AiStepHost, step: LlmStep, scope: Scope): Promise<{ prompt: string; system: string | undefined }> {
  const prompt = asText(await host.render(step.prompt, scope));
  const system = step.system === undefined ? undefined : asText(await host.render(step.system, scope));
  return { prompt, system };
}

async function agentParts(host: AiStepHost, step: AgentStep, agent: AgentDef, scope: Scope): Promise<{ prompt: string; instructions: string | undefined }> {
  const prompt = asText(await host.render(step.prompt, scope));
  const instructions = agent.instructions === undefined ? undefined : asText(await host.render(agent.instructions, scope));
  return { prompt, instructions };
}

/** A debugger's `set input`, checked: the conversation to start with, or what is wrong with it. */
function editedConversation(stepName: string, edited: { value: unknown }): ConversationInput | AiAttempt {
  const parsed = ConversationInput.safeParse(edited.value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`);
  return { kind: "failed", error: `step \`${stepName}\`: the input set in the debugger is not {system?, messages}: ${problems.join("; ")}`, retryable: false };
}

/** Where the attempt stood at a debugger's pause inside it, when it is resuming from there. */
function resumedConversation(host: AiStepHost, path: string, st: StepState): Conversation | null {
  const saved = host.debug?.conversation(path, st.attempts);
  if (saved === undefined) return null;
  const parsed = Conversation.safeParse(saved);
  return parsed.success ? parsed.data : null;
}

async function runLlm(host: AiStepHost, step: LlmStep, path: string, st: StepState, scope: Scope, input: EditedInput): Promise<AiAttempt> {
  const monitored = host.committer.snap.enableMonitoring;
  let system: string | undefined;
  let opening: ChatMessage[];
  if (input) {
    const edited = editedConversation(step.name, input);
    if ("kind" in edited) return edited;
    if (monitored) keepInput(host, path, st, { model: step.model, ...edited });
    system = edited.system;
    opening = edited.messages;
  } else {
    const parts = await llmParts(host, step, scope);
    if (monitored) keepInput(host, path, st, { model: step.model, ...(parts.system === undefined ? {} : { system: parts.system }), prompt: parts.prompt });
    system = withSchemaInstruction(parts.system, step.output_schema).system;
    opening = [{ role: "user", text: parts.prompt }];
  }
  let validate: ReturnType<typeof compileOutputSchema> | null = null;
  if (step.output_schema !== undefined) {
    try {
      validate = compileOutputSchema(step.output_schema);
    } catch (err) {
      return { kind: "failed", error: `step \`${step.name}\`: \`output_schema\` is not a valid JSON Schema: ${(err as Error).message}`, retryable: false };
    }
  }
  // The attempt's start must be durable before the provider bills anything.
  await host.committer.flush();
  const resumed = resumedConversation(host, path, st);
  const calls = new StepCalls(host, step.name, path, st, scope, resumed);
  const request: Omit<ChatRequest, "messages"> = {
    model: step.model,
    ...(system === undefined ? {} : { system }),
    ...(step.temperature === undefined ? {} : { temperature: step.temperature }),
    ...(step.max_tokens === undefined ? {} : { maxTokens: step.max_tokens }),
    ...(step.output_schema === undefined ? {} : { jsonSchema: step.output_schema }),
  };
  // The first call, and one repair when the answer does not satisfy `output_schema`.
  let messages = resumed?.messages ?? opening;
  for (;;) {
    const at = messages;
    const answer = await calls.call({ ...request, messages }, () => ({ turn: 1, messages: at, pending: null }));
    if (validate === null) return { kind: "completed", output: answer.text };
    const checked = checkAnswer(answer.text, validate);
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
      { role: "user", text: `That answer does not satisfy the JSON Schema: ${checked.problems}. Answer again with only the corrected JSON.` },
    ];
  }
}

async function runAgent(host: AiStepHost, step: AgentStep, path: string, st: StepState, scope: Scope, input: EditedInput): Promise<AiAttempt> {
  const agent = host.workflow.agents?.find((a) => a.name === step.agent);
  if (!agent) return { kind: "failed", error: `step \`${step.name}\`: unknown agent \`${step.agent}\``, retryable: false };
  const monitored = host.committer.snap.enableMonitoring;
  let system: string | undefined;
  let opening: ChatMessage[];
  if (input) {
    const edited = editedConversation(step.name, input);
    if ("kind" in edited) return edited;
    if (monitored) keepInput(host, path, st, { agent: agent.name, model: agent.model, ...edited });
    system = edited.system;
    opening = edited.messages;
  } else {
    const parts = await agentParts(host, step, agent, scope);
    if (monitored) keepInput(host, path, st, { agent: agent.name, model: agent.model, prompt: parts.prompt });
    system = parts.instructions;
    opening = [{ role: "user", text: parts.prompt }];
  }
  const servers = await Promise.all((agent.mcp ?? []).map((s) => renderServer(host, s, scope, step.timeout)));
  await host.committer.flush();

  const tools = new Map<string, { server: McpServerTarget; tool: string }>();
  const specs: ToolSpec[] = [];
  for (const server of servers) {
    for (const t of await host.effects.mcpTools(server, scope.signal)) {
      const exposed = toolName(server.name, t.name, tools);
      tools.set(exposed, { server, tool: t.name });
      specs.push({ name: exposed, description: t.description, parameters: t.inputSchema });
    }
  }

  // Resuming from a debugger's pause inside the attempt: its calls so far are not made again.
  const resumed = resumedConversation(host, path, st);
  const calls = new StepCalls(host, step.name, path, st, scope, resumed);
  const records: ToolCallRecord[] = resumed ? (st.toolCalls ?? []) : [];
  st.toolCalls = records;
  let recordedBytes = resumed ? jsonBytes(records) : 0;
  const messages: ChatMessage[] = resumed?.messages ?? opening;
  let pending = resumed?.pending ?? null;
  const maxTurns = agent.max_turns ?? DEFAULT_MAX_TURNS;
  for (let turn = resumed?.turn ?? 1; turn <= maxTurns; turn++) {
    let answer: Pick<LlmAnswer, "text" | "toolCalls">;
    let results: Extract<ChatMessage, { role: "tool" }>["results"];
    let from = 0;
    if (pending) {
      ({ answer, results, index: from } = pending);
      pending = null;
    } else {
      const t = turn;
      answer = await calls.call({ model: agent.model, ...(system === undefined ? {} : { system }), messages, tools: specs }, () => ({
        turn: t,
        messages,
        pending: null,
      }));
      if (answer.toolCalls.length === 0) return { kind: "completed", output: answer.text };
      messages.push({ role: "assistant", text: answer.text, toolCalls: answer.toolCalls });
      results = [];
    }
    for (let i = from; i < answer.toolCalls.length; i++) {
      const call = answer.toolCalls[i]!;
      const target = tools.get(call.name);
      let args = objectArguments(call.arguments);
      let decided: McpToolResult | null = null;
      if (host.debug && target && args !== null) {
        const [t, a, done] = [turn, { text: answer.text, toolCalls: answer.toolCalls }, results];
        const verdict = await host.debug.toolCall(path, records.length + 1, scope, { server: target.server.name, tool: target.tool, arguments: args }, () => ({
          attempt: st.attempts,
          state: { turn: t, calls: calls.count, last: calls.last, messages, pending: { answer: a, results: done, index: i } },
        }));
        if (verdict.kind === "park") throw new PausedInAttempt();
        if (verdict.kind === "skip") decided = { text: verdict.output ? asText(verdict.output.value) : "the debugger skipped this tool call", isError: false };
        else if (verdict.kind === "go" && verdict.edited) args = asArguments(verdict.edited.value);
      }
      const started = performance.now();
      let result: McpToolResult;
      if (decided) result = decided;
      else if (!target) result = { text: `there is no tool named ${call.name}`, isError: true };
      else if (args === null) result = { text: "the arguments must be a JSON object", isError: true };
      else result = await host.effects.mcpCall(target.server, target.tool, args, scope.signal);
      const record: ToolCallRecord = {
        turn,
        server: target?.server.name ?? "",
        tool: target?.tool ?? call.name,
        arguments: args !== null && jsonBytes(args) <= RECORDED_CHARS ? args : cut(args === null ? call.arguments : JSON.stringify(args)),
        result: cut(result.text),
        isError: result.isError,
        durationMs: Math.round(performance.now() - started),
      };
      recordedBytes += jsonBytes(record);
      const full = recordedBytes > host.committer.limits.toolCallBytes;
      records.push(
        full ? { ...record, arguments: null, result: `[not kept: this step's tool calls passed ${host.committer.limits.toolCallBytes} bytes]` } : record,
      );
      host.committer.emit("step_tool_call", path, { ...record, attempt: st.attempts });
      results.push({ callId: call.id, content: result.text, isError: result.isError });
    }
    messages.push({ role: "tool", results });
  }
  return { kind: "failed", error: `step \`${step.name}\`: agent \`${agent.name}\` did not finish within max_turns (${maxTurns})`, retryable: false };
}

/**
 * The LLM calls of one step attempt: each checked against the execution's budget, streamed to
 * `step_delta` events when the execution is monitored, and accounted (tokens and cost on the
 * step and the execution, and a `step_usage` event) as soon as it returns.
 */
class StepCalls {
  /** Calls made so far in the attempt. */
  count: number;
  /** What the last of them cost. */
  last: Usage | null;

  constructor(
    private readonly host: AiStepHost,
    private readonly stepName: string,
    private readonly path: string,
    private readonly st: StepState,
    private readonly scope: Scope,
    resumed: Conversation | null,
  ) {
    this.count = resumed?.calls ?? 0;
    this.last = resumed?.last ?? null;
  }

  /** `at`: where the attempt stands, should a debugger pause before this call. */
  async call(req: ChatRequest, at: () => Pick<Conversation, "turn" | "messages" | "pending">): Promise<LlmAnswer> {
    const debug = this.host.debug;
    if (debug) {
      const shown = { model: req.model, ...(req.system === undefined ? {} : { system: req.system }), messages: req.messages };
      const verdict = await debug.llmCall(this.path, this.count + 1, this.scope, shown, this.last ?? ZERO_USAGE, () => ({
        attempt: this.st.attempts,
        state: { ...at(), calls: this.count, last: this.last },
      }));
      if (verdict.kind === "park") throw new PausedInAttempt();
    }
    this.checkBudget(req);
    const n = ++this.count;
    const { committer, effects } = this.host;
    const snap = committer.snap;
    const attempt = this.st.attempts;
    const stream = snap.enableMonitoring
      ? new DeltaStream(committer.masker, (text, batch) =>
          committer.publishLive("step_delta", this.path, `${snap.id}.delta.${this.path}.${attempt}.${n}.${batch}`, { attempt, call: n, text }),
        )
      : null;
    let answer: LlmAnswer;
    try {
      answer = await effects.llm(req, this.scope.signal, stream?.push);
    } finally {
      stream?.end();
    }
    const spent = { ...answer.usage, costUsd: answer.costUsd };
    countLlmCall(answer.provider, req.model, spent);
    this.last = spent;
    this.st.usage = addUsage(this.st.usage ?? ZERO_USAGE, spent);
    snap.usage = addUsage(snap.usage, spent);
    committer.emit("step_usage", this.path, {
      attempt,
      call: n,
      model: req.model,
      provider: answer.provider,
      ...spent,
      stepUsage: this.st.usage,
      executionUsage: snap.usage,
    });
    return answer;
  }

  /** Refuses a call that would pass `max_cost`: the cost so far plus the prompt's (estimated) cost. */
  private checkBudget(req: ChatRequest): void {
    const max = this.host.workflow.max_cost;
    if (max === undefined) return;
    const price = this.host.effects.llmPrice(req.model);
    if (price === null) {
      throw new BudgetError(`model \`${req.model}\` has no price in WF_LLM_PRICES, so the workflow's max_cost ($${max}) cannot be kept`);
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

async function renderServer(host: AiStepHost, s: NonNullable<AgentDef["mcp"]>[number], scope: Scope, timeoutS: number | undefined): Promise<McpServerTarget> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.headers ?? {})) headers[k] = asText(await host.render(v, scope));
  return {
    name: s.name,
    ...(s.url === undefined ? {} : { url: asText(await host.render(s.url, scope)) }),
    ...(s.headers === undefined ? {} : { headers }),
    ...(s.command === undefined ? {} : { command: ((await host.render(s.command, scope)) as unknown[]).map(asText) }),
    ...(timeoutS === undefined ? {} : { timeoutMs: timeoutS * 1000 }),
  };
}

/** Providers take tool names of [A-Za-z0-9_-]{1,64}: `<server>__<tool>`, made unique. */
function toolName(server: string, tool: string, taken: ReadonlyMap<string, unknown>): string {
  const base = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60);
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  return name;
}

function withSchemaInstruction(system: string | undefined, schema: Record<string, unknown> | undefined): { system?: string } {
  if (schema === undefined) return system === undefined ? {} : { system };
  const instruction = `Answer with only a JSON value that satisfies this JSON Schema:\n${JSON.stringify(schema)}`;
  return { system: system === undefined ? instruction : `${system}\n\n${instruction}` };
}

function objectArguments(text: string): Record<string, unknown> | null {
  try {
    return asArguments(JSON.parse(text || "{}"));
  } catch {
    return null;
  }
}

function asArguments(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function promptChars(req: ChatRequest): number {
  let n = req.system?.length ?? 0;
  for (const m of req.messages) {
    if (m.role === "tool") for (const r of m.results) n += r.content.length;
    else n += m.text.length + (m.role === "assistant" ? m.toolCalls.reduce((sum, c) => sum + c.arguments.length, 0) : 0);
  }
  return n + (req.tools ? JSON.stringify(req.tools).length : 0);
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  return value === undefined || value === null ? "" : JSON.stringify(value);
}

/** A monitored step's input, cut to its limit and accounted in the record. */
function keepInput(host: AiStepHost, path: string, st: StepState, input: unknown): void {
  st.input = host.committer.budget.input(input);
  host.committer.budget.account(path, st);
}

function cut(text: string): string {
  return text.length > RECORDED_CHARS ? `${text.slice(0, RECORDED_CHARS)}… (${text.length} characters)` : text;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
