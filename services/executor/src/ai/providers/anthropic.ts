import { z } from "zod";
import type { LlmProviderConfig } from "@wf/shared/config";
import { callProvider } from "./http";
import { readSse } from "./sse";
import {
  ProviderError,
  type ChatMessage,
  type ChatOptions,
  type ChatRequest,
  type ChatResponse,
  type Provider,
  type ToolCall,
} from "./types";

const API_VERSION = "2023-06-01";
/** The protocol requires `max_tokens`; this is used when the step gives none. */
const DEFAULT_MAX_TOKENS = 4096;

const Usage = z.looseObject({
  input_tokens: z.int().nonnegative().default(0),
  output_tokens: z.int().nonnegative().default(0),
  cache_creation_input_tokens: z.int().nonnegative().nullish(),
  cache_read_input_tokens: z.int().nonnegative().nullish(),
});

const Block = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
  z.looseObject({ type: z.literal("thinking") }),
  z.looseObject({ type: z.literal("redacted_thinking") }),
]);

const Message = z.looseObject({
  content: z.array(Block),
  stop_reason: z.string().nullish(),
  usage: Usage,
});

const StreamEvent = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("message_start"), message: z.looseObject({ usage: Usage }) }),
  z.looseObject({ type: z.literal("content_block_start"), index: z.int().nonnegative(), content_block: Block }),
  z.looseObject({
    type: z.literal("content_block_delta"),
    index: z.int().nonnegative(),
    delta: z.discriminatedUnion("type", [
      z.looseObject({ type: z.literal("text_delta"), text: z.string() }),
      z.looseObject({ type: z.literal("input_json_delta"), partial_json: z.string() }),
      z.looseObject({ type: z.literal("thinking_delta") }),
      z.looseObject({ type: z.literal("signature_delta") }),
    ]),
  }),
  z.looseObject({ type: z.literal("content_block_stop") }),
  z.looseObject({
    type: z.literal("message_delta"),
    delta: z.looseObject({ stop_reason: z.string().nullish() }),
    usage: z.looseObject({ output_tokens: z.int().nonnegative() }).partial().nullish(),
  }),
  z.looseObject({ type: z.literal("message_stop") }),
  z.looseObject({ type: z.literal("ping") }),
  z.looseObject({ type: z.literal("error"), error: z.looseObject({ type: z.string(), message: z.string() }) }),
]);

/** The Anthropic messages protocol. It has no JSON-schema answer mode: `jsonSchema` goes in the prompt. */
export class AnthropicProvider implements Provider {
  readonly name: string;
  readonly structuredOutput = false;

  constructor(private readonly cfg: LlmProviderConfig) {
    this.name = cfg.name;
  }

  async chat(req: ChatRequest, opts: ChatOptions): Promise<ChatResponse> {
    const stream = opts.onText !== undefined;
    const body = {
      model: req.model,
      max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
      ...(req.system ? { system: req.system } : {}),
      messages: req.messages.map(wireMessage),
      ...(req.tools?.length
        ? { tools: req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })) }
        : {}),
      ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
      ...(stream ? { stream: true } : {}),
    };
    const url = new URL(`${this.cfg.baseUrl.replace(/\/+$/, "")}/messages`);
    for (const [k, v] of Object.entries(this.cfg.query)) url.searchParams.set(k, v);
    const auth = opts.apiKey === undefined ? {} : { [this.cfg.apiKeyHeader ?? "x-api-key"]: opts.apiKey };
    return callProvider(
      {
        provider: this.name,
        url: url.toString(),
        headers: { "anthropic-version": API_VERSION, ...this.cfg.headers, ...auth },
        body,
        policy: this.cfg,
        signal: opts.signal,
        scrub: opts.apiKey ? [opts.apiKey] : [],
      },
      (res) => (stream ? this.readStream(res, opts.onText!) : this.readMessage(res)),
    );
  }

  private async readMessage(res: Response): Promise<ChatResponse> {
    const parsed = Message.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new ProviderError(this.name, res.status, "the answer is not a message", false);
    let text = "";
    const toolCalls: ToolCall[] = [];
    for (const block of parsed.data.content) {
      if (block.type === "text") text += block.text;
      else if (block.type === "tool_use")
        toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    }
    return {
      text,
      toolCalls,
      usage: usageOf(parsed.data.usage, parsed.data.usage.output_tokens),
      stopReason: parsed.data.stop_reason ?? null,
    };
  }

  private async readStream(res: Response, onText: (piece: string) => void): Promise<ChatResponse> {
    if (!res.body) throw new ProviderError(this.name, res.status, "the stream has no body", true);
    let text = "";
    let stopReason: string | null = null;
    let start: z.output<typeof Usage> | null = null;
    let outputTokens = 0;
    const calls = new Map<number, ToolCall>();
    for await (const e of readSse(res.body)) {
      const parsed = StreamEvent.safeParse(safeJson(e.data));
      // Event types added to the protocol later are skipped, as its documentation asks.
      if (!parsed.success) continue;
      const ev = parsed.data;
      switch (ev.type) {
        case "message_start":
          start = ev.message.usage;
          outputTokens = ev.message.usage.output_tokens;
          break;
        case "content_block_start":
          if (ev.content_block.type === "tool_use")
            calls.set(ev.index, { id: ev.content_block.id, name: ev.content_block.name, arguments: "" });
          break;
        case "content_block_delta":
          if (ev.delta.type === "text_delta") {
            text += ev.delta.text;
            onText(ev.delta.text);
          } else if (ev.delta.type === "input_json_delta") {
            const call = calls.get(ev.index);
            if (call) call.arguments += ev.delta.partial_json;
          }
          break;
        case "message_delta":
          if (ev.delta.stop_reason) stopReason = ev.delta.stop_reason;
          // Cumulative: the last one counts.
          if (ev.usage?.output_tokens !== undefined) outputTokens = ev.usage.output_tokens;
          break;
        case "error":
          throw new ProviderError(
            this.name,
            res.status,
            `stream error ${ev.error.type}: ${ev.error.message}`,
            ev.error.type === "overloaded_error",
          );
        default:
          break;
      }
    }
    const toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ ...c, arguments: c.arguments || "{}" }));
    return { text, toolCalls, usage: usageOf(start, outputTokens), stopReason };
  }
}

function wireMessage(m: ChatMessage): unknown {
  switch (m.role) {
    case "user":
      return { role: "user", content: [{ type: "text", text: m.text }] };
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(m.text ? [{ type: "text", text: m.text }] : []),
          ...m.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: objectOrEmpty(c.arguments) })),
        ],
      };
    case "tool":
      return {
        role: "user",
        content: m.results.map((r) => ({
          type: "tool_result",
          tool_use_id: r.callId,
          content: r.content,
          is_error: r.isError,
        })),
      };
  }
}

/** Cache reads and writes are input tokens too: they are billed. */
function usageOf(start: z.output<typeof Usage> | null, outputTokens: number): ChatResponse["usage"] {
  const prompt = start
    ? start.input_tokens + (start.cache_creation_input_tokens ?? 0) + (start.cache_read_input_tokens ?? 0)
    : 0;
  return { promptTokens: prompt, completionTokens: outputTokens, totalTokens: prompt + outputTokens };
}

function objectOrEmpty(text: string): unknown {
  const value = safeJson(text);
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
