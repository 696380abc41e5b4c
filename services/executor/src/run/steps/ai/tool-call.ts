import type { McpToolResult } from "../../../ai/mcp-pool";
import type { ChatMessage } from "../../../ai/providers/types";
import type { Debugger } from "../../debug/debugger";
import type { StepAt } from "../step-kind";
import type { Conversation } from "./conversation";
import type { AiStepHost } from "./host";
import type { ToolTarget } from "./mcp-tools";
import { asText } from "./prompt-parts";
import { PausedInAttempt, type StepCalls } from "./step-calls";
import { cut, recordedArguments, type ToolRecords } from "./tool-records";

/** What a tool call needs of its agent attempt. */
export interface ToolCalling {
  readonly host: AiStepHost;
  readonly at: StepAt;
  /** The tools the model may call, by the names it is given. */
  readonly tools: ReadonlyMap<string, ToolTarget>;
  readonly calls: StepCalls;
  readonly records: ToolRecords;
  readonly messages: ChatMessage[];
}

/** An answer's tool calls under way: the answer, the results of the calls before, and the call at `index`. */
export type PendingCalls = NonNullable<Conversation["pending"]>;

type Arguments = Record<string, unknown>;

/** Makes the answer's tool call at `index` (when a debugger lets it) and records it: its result for the model. */
export async function runToolCall(
  run: ToolCalling,
  turn: number,
  pending: PendingCalls,
): Promise<PendingCalls["results"][number]> {
  const call = pending.answer.toolCalls[pending.index]!;
  const target = run.tools.get(call.name);
  let args = objectArguments(call.arguments);
  let decided: McpToolResult | null = null;
  if (run.host.debug && target && args !== null)
    ({ args, decided } = await askDebugger(run, run.host.debug, turn, pending, target, args));
  const started = performance.now();
  let result: McpToolResult;
  if (decided) result = decided;
  else if (!target) result = { text: `there is no tool named ${call.name}`, isError: true };
  else if (args === null) result = { text: "the arguments must be a JSON object", isError: true };
  else result = await run.host.effects.mcpCall(target.server, target.tool, args, run.at.scope.signal);
  run.records.add({
    turn,
    server: target?.server.name ?? "",
    tool: target?.tool ?? call.name,
    arguments: recordedArguments(call.arguments, args),
    result: cut(result.text),
    isError: result.isError,
    durationMs: Math.round(performance.now() - started),
  });
  return { callId: call.id, content: result.text, isError: result.isError };
}

/**
 * A debugger's verdict on the call: it parks the attempt, decides the call's result (skip), or lets it go, maybe with
 * other arguments.
 */
async function askDebugger(
  run: ToolCalling,
  debug: Debugger,
  turn: number,
  pending: PendingCalls,
  target: ToolTarget,
  args: Arguments,
): Promise<{ args: Arguments | null; decided: McpToolResult | null }> {
  const { path, state: st, scope } = run.at;
  const verdict = await debug.toolCall(
    path,
    run.records.count + 1,
    scope,
    { server: target.server.name, tool: target.tool, arguments: args },
    () => ({
      attempt: st.attempts,
      state: { turn, calls: run.calls.count, last: run.calls.last, messages: run.messages, pending },
    }),
  );
  if (verdict.kind === "park") throw new PausedInAttempt();
  if (verdict.kind === "skip") {
    return {
      args,
      decided: {
        text: verdict.output ? asText(verdict.output.value) : "the debugger skipped this tool call",
        isError: false,
      },
    };
  }
  if (verdict.kind === "go" && verdict.edited) return { args: asArguments(verdict.edited.value), decided: null };
  return { args, decided: null };
}

function objectArguments(text: string): Arguments | null {
  try {
    return asArguments(JSON.parse(text || "{}"));
  } catch {
    return null;
  }
}

function asArguments(value: unknown): Arguments | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Arguments) : null;
}
