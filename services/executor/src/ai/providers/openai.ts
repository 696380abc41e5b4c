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

const Usage = z.looseObject({
  prompt_tokens: z.int().nonnegative(),
  completion_tokens: z.int().nonnegative(),
  total_tokens: z.int().nonnegative().optional(),
});

const WireToolCall = z.looseObject({
  id: z.string(),
  function: z.looseObject({ name: z.string(), arguments: z.string().default("") }),
});

const Completion = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullish(), tool_calls: z.array(WireToolCall).nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: Usage.nullish(),
});

const Chunk = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        delta: z
          .looseObject({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.int().nonnegative(),
                  id: z.string().nullish(),
                  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  usage: Usage.nullish(),
});

/**
 * The OpenAI chat-completions protocol, at any base URL: OpenAI, Azure OpenAI (v1 API, key in
 * `api-key`), vLLM, Ollama, LiteLLM and the other servers that speak it.
 */
export class OpenAiProvider implements Provider {
  readonly name: string;
  readonly structuredOutput: boolean;

  constructor(private readonly cfg: LlmProviderConfig) {
    this.name = cfg.name;
    this.structuredOutput = cfg.structuredOutput;
  }

  async chat(req: ChatRequest, opts: ChatOptions): Promise<ChatResponse> {
    const stream = opts.onText !== undefined;
    const body = {
      model: req.model,
      messages: wireMessages(req),
      ...(req.tools?.length
        ? {
            tools: req.tools.map((t) => ({
              type: "function",
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
          }
        : {}),
      ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
      ...(req.maxTokens === undefined ? {} : { max_tokens: req.maxTokens }),
      ...(req.jsonSchema && this.structuredOutput
        ? { response_format: { type: "json_schema", json_schema: { name: "output", schema: req.jsonSchema } } }
        : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    };
    const url = new URL(`${this.cfg.baseUrl.replace(/\/+$/, "")}/chat/completions`);
    for (const [k, v] of Object.entries(this.cfg.query)) url.searchParams.set(k, v);
    return callProvider(
      {
        provider: this.name,
        url: url.toString(),
        headers: { ...this.cfg.headers, ...this.authHeaders(opts.apiKey) },
        body,
        policy: this.cfg,
        signal: opts.signal,
        scrub: opts.apiKey ? [opts.apiKey] : [],
      },
      (res) => (stream ? this.readStream(res, opts.onText!) : this.readCompletion(res)),
    );
  }

  private authHeaders(apiKey: string | undefined): Record<string, string> {
    if (apiKey === undefined) return {};
    const header = this.cfg.apiKeyHeader;
    return header === undefined || header.toLowerCase() === "authorization"
      ? { authorization: `Bearer ${apiKey}` }
      : { [header]: apiKey };
  }

  private async readCompletion(res: Response): Promise<ChatResponse> {
    const parsed = Completion.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new ProviderError(this.name, res.status, "the answer is not a chat completion", false);
    const choice = parsed.data.choices[0]!;
    return {
      text: choice.message.content ?? "",
      toolCalls: (choice.message.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      })),
      usage: usageOf(parsed.data.usage),
      stopReason: choice.finish_reason ?? null,
    };
  }

  private async readStream(res: Response, onText: (piece: string) => void): Promise<ChatResponse> {
    if (!res.body) throw new ProviderError(this.name, res.status, "the stream has no body", true);
    let text = "";
    let stopReason: string | null = null;
    let usage: z.output<typeof Usage> | null = null;
    const calls: ToolCall[] = [];
    for await (const e of readSse(res.body)) {
      if (e.data === "[DONE]") break;
      const chunk = Chunk.safeParse(safeJson(e.data));
      if (!chunk.success)
        throw new ProviderError(
          this.name,
          res.status,
          `a stream chunk is not a chat completion chunk: ${e.data.slice(0, 200)}`,
          false,
        );
      if (chunk.data.usage) usage = chunk.data.usage;
      for (const choice of chunk.data.choices) {
        if (choice.finish_reason) stopReason = choice.finish_reason;
        const delta = choice.delta;
        if (delta?.content) {
          text += delta.content;
          onText(delta.content);
        }
        // A call arrives in pieces: its id and name first, then its arguments, keyed by index.
        for (const part of delta?.tool_calls ?? []) {
          const call = (calls[part.index] ??= { id: "", name: "", arguments: "" });
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name += part.function.name;
          if (part.function?.arguments) call.arguments += part.function.arguments;
        }
      }
    }
    return { text, toolCalls: calls.filter(Boolean), usage: usageOf(usage), stopReason };
  }
}

function wireMessages(req: ChatRequest): unknown[] {
  const out: unknown[] = req.system ? [{ role: "system", content: req.system }] : [];
  for (const m of req.messages) out.push(...wireMessage(m));
  return out;
}

function wireMessage(m: ChatMessage): unknown[] {
  switch (m.role) {
    case "user":
      return [{ role: "user", content: m.text }];
    case "assistant":
      return [
        {
          role: "assistant",
          content: m.text || null,
          ...(m.toolCalls.length
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
      ];
    case "tool":
      return m.results.map((r) => ({ role: "tool", tool_call_id: r.callId, content: r.content }));
  }
}

/** A stream may end without usage (servers that ignore `include_usage`): counted as zero. */
function usageOf(u: z.output<typeof Usage> | null | undefined): ChatResponse["usage"] {
  if (!u) return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
