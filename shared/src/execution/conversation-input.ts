import { z } from "zod";

/**
 * An llm or agent step's conversation as the debugger sees it: what `set input` may give the step at its before_step
 * pause (the executor's steps/ai/conversation.ts runs it), checked when the command claims its pause.
 */
export const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
export const ToolResult = z.object({ callId: z.string(), content: z.string(), isError: z.boolean() });

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

/** `value` as a conversation, or what is wrong with it (its first three problems, each with its path). */
export function parseConversation(value: unknown): { ok: true; input: ConversationInput } | { ok: false; why: string } {
  const parsed = ConversationInput.safeParse(value);
  if (parsed.success) return { ok: true, input: parsed.data };
  const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`);
  return { ok: false, why: `is not {system?, messages}: ${problems.join("; ")}` };
}
