/** A tool the model may call, as the providers describe it: a name and a JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  /** The provider's id of the call, echoed in its result. */
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text; not always valid). */
  arguments: string;
}

export type ChatMessage =
  | { role: "user"; text: string }
  | { role: "assistant"; text: string; toolCalls: ToolCall[] }
  | { role: "tool"; results: { callId: string; content: string; isError: boolean }[] };

export interface ChatRequest {
  model: string;
  system?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  /** Ask for JSON that satisfies this schema, in the provider's structured-output mode when it has one. */
  jsonSchema?: Record<string, unknown>;
}

/** Tokens as the provider reported them. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  /** Why the model stopped, in the provider's words (`stop`, `tool_calls`, `end_turn`, …). */
  stopReason: string | null;
}

export interface ChatOptions {
  signal: AbortSignal;
  /** When given, the answer is streamed and each piece of text is passed here as it arrives. */
  onText?: (piece: string) => void;
  /** The API key, resolved by the caller (configuration or the owner's secret). */
  apiKey: string | undefined;
}

/** One LLM protocol. */
export interface Provider {
  readonly name: string;
  /** Whether the provider enforces `jsonSchema` itself (else only the prompt asks for it). */
  readonly structuredOutput: boolean;
  chat(req: ChatRequest, opts: ChatOptions): Promise<ChatResponse>;
}

/** A provider refused or failed: names the provider, the status and what it said. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly status: number | null,
    detail: string,
    /** Worth another attempt of the step (rate limits, server errors, timeouts). */
    readonly retryable: boolean,
  ) {
    super(`provider \`${provider}\`${status === null ? "" : ` answered ${status}`}: ${detail}`);
    this.name = "ProviderError";
  }
}
