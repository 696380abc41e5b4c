import type { ModelPrice } from "@wf/shared/config";
import type { LlmAnswer } from "../ai/gateway";
import type { McpServerTarget, McpTool, McpToolResult } from "../ai/mcp-pool";
import type { ChatRequest } from "../ai/providers/types";

/** The side effects of `llm` and `agent` steps (part of RunEffects). */
export interface AiEffects {
  /** The owner's secrets, for `{{ secrets.* }}`: loaded before the run when the workflow reads any. */
  readonly secrets: Readonly<Record<string, string>>;
  /** One call to the provider that serves `req.model`; `onText` makes it a streamed one. */
  llm(req: ChatRequest, signal: AbortSignal, onText?: (piece: string) => void): Promise<LlmAnswer>;
  /** The configured price of a model, null when the price table has none. */
  llmPrice(model: string): ModelPrice | null;
  mcpTools(server: McpServerTarget, signal: AbortSignal): Promise<McpTool[]>;
  /** Never throws for a failing tool: the failure is a result the model is shown. */
  mcpCall(
    server: McpServerTarget,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpToolResult>;
  /** Closes what the run opened (its MCP connections): the run is over, parked or terminal. */
  dispose(): Promise<void>;
}
