import { z } from "zod";
import {
  ChatMessage,
  parseConversation,
  ToolCall,
  ToolResult,
  Usage,
  type ConversationInput,
} from "@wf/shared/execution";
import type { Attempt, StepAt } from "../step-kind";
import { keepInput, type AiStepHost } from "./host";

/**
 * Where an attempt of an llm or agent step stood when it paused inside (before an LLM call or a tool call), kept in the
 * snapshot so that it goes on from there.
 */
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
  const parsed = parseConversation(edited.value);
  if (parsed.ok) return parsed.input;
  return {
    kind: "failed",
    error: `step \`${stepName}\`: the input set in the debugger ${parsed.why}`,
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
