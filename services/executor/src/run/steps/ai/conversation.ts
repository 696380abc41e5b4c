import { z } from "zod";
import { Usage } from "@wf/shared/execution";
import type { Attempt, StepAt } from "../step-kind";
import { keepInput, type AiStepHost } from "./host";

/**
 * An llm or agent step's conversation as the debugger sees it: what `set input` may give the
 * step at its before_step pause, and where an attempt stood when it paused inside (before an
 * LLM call or a tool call), kept in the snapshot so that it goes on from there.
 */
const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
const ToolResult = z.object({ callId: z.string(), content: z.string(), isError: z.boolean() });

export const ChatMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), text: z.string() }),
  z.object({ role: z.literal("assistant"), text: z.string(), toolCalls: z.array(ToolCall) }),
  z.object({ role: z.literal("tool"), results: z.array(ToolResult) }),
]);

/** The input of an llm or agent step (its `model` is shown, not changed by an edit). */
export const ConversationInput = z.object({
  model: z.string().optional(),
  system: z.string().optional(),
  messages: z.array(ChatMessage).min(1),
});
export type ConversationInput = z.infer<typeof ConversationInput>;

/** Where an attempt stood at a pause inside it. */
export const Conversation = z.object({
  /** The agent's turn (1 for an llm step). */
  turn: z.number().int().positive(),
  /** LLM calls made so far in the attempt. */
  calls: z.number().int().nonnegative(),
  /** What the last of them cost: the estimate of the next (usage breakpoints). */
  last: Usage.nullable(),
  messages: z.array(ChatMessage),
  /** Paused among an answer's tool calls: the answer, the results of the calls before, and the call paused at. */
  pending: z
    .object({
      answer: z.object({ text: z.string(), toolCalls: z.array(ToolCall) }),
      results: z.array(ToolResult),
      index: z.number().int().nonnegative(),
    })
    .nullable(),
});
export type Conversation = z.infer<typeof Conversation>;

/** The conversation an attempt starts from: a debugger's edited input, or the step's own prompt. */
export interface Opening {
  system: string | undefined;
  messages: ConversationInput["messages"];
}

/** A debugger's `set input`, checked: the conversation to start with, or what is wrong with it. */
function editedConversation(stepName: string, edited: { value: unknown }): ConversationInput | Attempt {
  const parsed = ConversationInput.safeParse(edited.value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`);
  return {
    kind: "failed",
    error: `step \`${stepName}\`: the input set in the debugger is not {system?, messages}: ${problems.join("; ")}`,
    retryable: false,
  };
}

/**
 * The opening of an attempt given a debugger's `set input`: the conversation set, kept as a
 * monitored step's input beside what `shown` says of the step (its model, its agent).
 */
export function editedOpening(
  host: AiStepHost,
  stepName: string,
  { path, state, input }: StepAt & { input: { value: unknown } },
  shown: Record<string, unknown>,
): Opening | Attempt {
  const edited = editedConversation(stepName, input);
  if ("kind" in edited) return edited;
  if (host.committer.snap.enableMonitoring) keepInput(host, path, state, { ...shown, ...edited });
  return { system: edited.system, messages: edited.messages };
}

/** Where the attempt stood at a debugger's pause inside it, when it is resuming from there. */
export function resumedConversation(host: AiStepHost, { path, state }: StepAt): Conversation | null {
  const saved = host.debug?.conversation(path, state.attempts);
  if (saved === undefined) return null;
  const parsed = Conversation.safeParse(saved);
  return parsed.success ? parsed.data : null;
}
